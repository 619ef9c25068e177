import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomShortCode, SHORT_CODE_PATTERN } from './short-code';

describe('short codes', () => {
  it('are 8 base62 characters by default (contract §12: at least 7)', () => {
    for (let i = 0; i < 200; i++) assert.match(randomShortCode(), /^[0-9A-Za-z]{8}$/);
    assert.match(randomShortCode(12), /^[0-9A-Za-z]{12}$/);
  });

  it('use the whole alphabet and do not repeat', () => {
    const codes = Array.from({ length: 2000 }, () => randomShortCode());
    assert.equal(new Set(codes).size, codes.length);
    assert.equal(new Set(codes.join('')).size, 62);
  });

  it('accepts 7 to 16 base62 characters when resolving', () => {
    assert.ok(SHORT_CODE_PATTERN.test('abcDEF1'));
    assert.ok(!SHORT_CODE_PATTERN.test('abcDEF'));
    assert.ok(!SHORT_CODE_PATTERN.test('abc-EF12'));
    assert.ok(!SHORT_CODE_PATTERN.test('a'.repeat(17)));
  });
});
