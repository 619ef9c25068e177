import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomBase64url, randomHex } from './random-pool';

describe('the pooled random identifiers', () => {
  it('give the lengths and alphabets randomBytes would, for pooled and direct sizes', () => {
    assert.match(randomHex(20), /^[0-9a-f]{40}$/);
    assert.match(randomHex(1), /^[0-9a-f]{2}$/);
    assert.match(randomBase64url(24), /^[A-Za-z0-9_-]{32}$/);
    assert.match(randomBase64url(32), /^[A-Za-z0-9_-]{43}$/);
    assert.match(randomHex(1000), /^[0-9a-f]{2000}$/); // above the pooled sizes: read directly
  });

  it('never hands out the same bytes twice, also across many refills of the pool', () => {
    const seen = new Set<string>();
    // 20 000 × 20 bytes: about a hundred refills of the 4 KB pool, with draws that straddle its end.
    for (let i = 0; i < 20_000; i++) seen.add(randomHex(i % 7 === 0 ? 13 : 20));
    assert.equal(seen.size, 20_000);
  });

  it('looks uniform: every hex digit about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 5_000; i++)
      for (const digit of randomHex(20)) counts.set(digit, (counts.get(digit) ?? 0) + 1);
    assert.equal(counts.size, 16);
    // 200 000 digits: 12 500 each expected; 5 % off is far beyond chance (σ ≈ 108).
    for (const [digit, count] of counts) assert.ok(Math.abs(count - 12_500) < 625, `${digit}: ${count}`);
  });

  it('refuses sizes that are not a positive whole number', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) assert.throws(() => randomHex(size), RangeError);
  });
});
