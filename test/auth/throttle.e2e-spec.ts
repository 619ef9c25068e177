import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, apiKeyAuth, basicAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/pymt-txn/';
const LIMIT = 3;
const WINDOW_SECONDS = 2;

describe('throttling repeated authentication failures (429 with Retry-After)', () => {
  let t: TestApp;
  let s: Seeded;
  let sessionId: string;
  before(async () => {
    t = await startApp({
      env: { AUTH_FAILURE_LIMIT: String(LIMIT), AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    });
    s = await seedBasics(t);
    sessionId = (await t.http().post(PATH).set('Authorization', s.apiKey).send(transactionBody()).expect(201))
      .body.session_id;
  });
  after(() => t.close());

  const create = (auth?: string) => {
    const req = t.http().post(PATH);
    return (auth ? req.set('Authorization', auth) : req).send(transactionBody());
  };
  const waitForWindow = () => sleep(WINDOW_SECONDS * 1000 + 200);

  it('does not count requests without credentials', async () => {
    for (let i = 0; i < LIMIT + 2; i++) await create().expect(401);
    await create(s.merchant).expect(201);
  });

  it('after the limit of wrong passwords, answers 429 with Retry-After, even to the right password', async () => {
    for (let i = 0; i < LIMIT; i++) {
      const res = await create(basicAuth('merchant', 'wrong-password')).expect(401);
      assert.deepEqual(res.body, { detail: 'Invalid username or password.' });
    }
    const throttled = await create(basicAuth('merchant', 'wrong-password')).expect(429);
    const retryAfter = Number(throttled.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SECONDS,
      String(retryAfter),
    );
    assert.deepEqual(throttled.body, {
      detail: `Request was throttled. Expected available in ${retryAfter} seconds.`,
    });
    await create(s.merchant).expect(429);
    await create(s.apiKey).expect(429);
    await t.http().get('/b/checkout/v1/admin/config/').set('Authorization', adminAuth()).expect(429);
  });

  it('still answers the public retrieve while throttled', async () => {
    await t.http().get(`${PATH}${sessionId}/`).set('Authorization', s.merchant).expect(200);
  });

  it('lets the right credentials in again once the window has passed', async () => {
    await waitForWindow();
    await create(s.merchant).expect(201);
  });

  it('counts wrong API keys too', async () => {
    await waitForWindow();
    for (let i = 0; i < LIMIT; i++)
      await create(apiKeyAuth('abcdefgh.wrongwrongwrongwrongwrongwrongwrong')).expect(401);
    const res = await create(s.apiKey).expect(429);
    assert.ok(Number(res.headers['retry-after']) >= 1);
    await waitForWindow();
    await create(s.apiKey).expect(201);
  });

  it('stays below the limit when failures are fewer than the limit', async () => {
    await waitForWindow();
    for (let i = 0; i < LIMIT - 1; i++) await create(basicAuth('merchant', 'wrong-password')).expect(401);
    await create(s.merchant).expect(201);
  });
});
