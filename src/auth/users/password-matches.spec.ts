import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword } from '../passwords';
import { PasswordMatches, REMEMBERED_MAX, REMEMBERED_MS } from './password-matches';

/** A PasswordMatches over a counted check (`secret` matches `hash-of-secret`) and a clock set by hand. */
function counted() {
  const clock = { now: 0 };
  const calls: string[] = [];
  const matches = new PasswordMatches(
    (password, stored) => {
      calls.push(`${stored}:${password}`);
      return Promise.resolve(stored === `hash-of-${password}`);
    },
    () => clock.now,
  );
  return { matches, calls, clock };
}

describe('PasswordMatches', () => {
  it('checks a match once, then answers it from memory until REMEMBERED_MS has passed', async () => {
    const { matches, calls, clock } = counted();
    assert.equal(await matches.check('secret', 'hash-of-secret'), true);
    clock.now = REMEMBERED_MS - 1;
    assert.equal(await matches.check('secret', 'hash-of-secret'), true);
    assert.deepEqual(calls, ['hash-of-secret:secret']);
    assert.deepEqual(matches.stats, { remembered: 1, hashed: 1 });
    clock.now = REMEMBERED_MS;
    assert.equal(await matches.check('secret', 'hash-of-secret'), true);
    assert.equal(calls.length, 2, 'checked again once the time has passed');
  });

  it('never remembers a wrong password: each guess is checked', async () => {
    const { matches, calls } = counted();
    for (let i = 0; i < 3; i++) assert.equal(await matches.check('guess', 'hash-of-secret'), false);
    assert.equal(calls.length, 3);
    assert.deepEqual(matches.stats, { remembered: 0, hashed: 3 });
  });

  it('is keyed by the stored hash too: the same password against a new hash is checked afresh', async () => {
    const { matches, calls } = counted();
    assert.equal(await matches.check('secret', 'hash-of-secret'), true);
    assert.equal(await matches.check('secret', 'other-hash'), false);
    assert.equal(calls.length, 2);
    // The pair is not mistaken for another that concatenates the same: hash "a\0b" + "" vs "a" + "b\0"…
    assert.equal(await matches.check('', 'hash-of-secret\0secret'), false);
  });

  it(`remembers at most ${REMEMBERED_MAX} matches, forgetting the oldest first`, async () => {
    const { matches, calls } = counted();
    for (let i = 0; i <= REMEMBERED_MAX; i++) await matches.check(`p${i}`, `hash-of-p${i}`);
    calls.length = 0;
    await matches.check(`p${REMEMBERED_MAX}`, `hash-of-p${REMEMBERED_MAX}`);
    await matches.check('p1', 'hash-of-p1');
    assert.deepEqual(calls, [], 'the newest ones are still remembered');
    await matches.check('p0', 'hash-of-p0');
    assert.deepEqual(calls, ['hash-of-p0:p0'], 'the oldest was forgotten');
  });

  it('takes a hash just made from a password as a match, without checking it', async () => {
    const { matches, calls } = counted();
    matches.remember('new', 'hash-of-new');
    assert.equal(await matches.check('new', 'hash-of-new'), true);
    assert.equal(await matches.check('other', 'hash-of-new'), false);
    assert.deepEqual(calls, ['hash-of-new:other']);
  });

  it('checks real scrypt hashes by default', async () => {
    const matches = new PasswordMatches();
    const stored = await hashPassword('right password');
    assert.equal(await matches.check('wrong password', stored), false);
    assert.equal(await matches.check('right password', stored), true);
    assert.equal(await matches.check('right password', stored), true);
    assert.deepEqual(matches.stats, { remembered: 1, hashed: 2 });
  });
});
