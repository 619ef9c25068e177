import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, apiKeyAuth, basicAuth, Seeded, seedBasics } from '../setup/fixtures';
import { ADMIN, startApp, TestApp } from '../setup/test-app';
import { consoleSignIn, sessionTokenOf } from '../admin/console-sign-in';
import { requestFrom } from './from-address';

const PATH = '/b/checkout/v1/pymt-txn/';
const LIMIT = 3;
const WINDOW_SECONDS = 4;
const METRICS_TOKEN = 'metrics-token-0123456789';
/** Another client on this machine: supertest always comes from 127.0.0.1. */
const OTHER = '127.0.0.2';

/**
 * contract §3: failures are counted per source address and identity together, the lock is checked
 * after the credential, and a correct credential is never refused (ten wrong
 * passwords for `admin` from 127.0.0.2 used to lock the real admin out everywhere).
 */
describe('throttling repeated authentication failures (429 with Retry-After)', () => {
  let t: TestApp;
  let s: Seeded;
  let sessionId: string;
  before(async () => {
    t = await startApp({
      env: {
        AUTH_FAILURE_LIMIT: String(LIMIT),
        AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
        METRICS_TOKEN,
      },
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
  /** The same create from another address (the peer the service sees). */
  const createFrom = (address: string, auth: string) =>
    requestFrom(t.url, address, {
      method: 'POST',
      path: PATH,
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(transactionBody()),
    });
  const waitForWindow = () => sleep(WINDOW_SECONDS * 1000 + 200);
  const wrongMerchant = basicAuth('merchant', 'wrong-password');
  /** The right password: clears this address's count for `merchant`, so a test starts afresh. */
  const cleared = () => create(s.merchant).expect(201);

  it('does not count requests without credentials', async () => {
    for (let i = 0; i < LIMIT + 2; i++) await create().expect(401);
    await create(s.merchant).expect(201);
  });

  it('after the limit of wrong passwords, answers wrong ones 429 with Retry-After, and still lets the right one in', async () => {
    for (let i = 0; i < LIMIT; i++) {
      const res = await create(wrongMerchant).expect(401);
      assert.deepEqual(res.body, { detail: 'Invalid username or password.' });
    }
    const throttled = await create(wrongMerchant).expect(429);
    const retryAfter = Number(throttled.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SECONDS,
      String(retryAfter),
    );
    assert.deepEqual(throttled.body, {
      detail: `Request was throttled. Expected available in ${retryAfter} seconds.`,
    });
    await create(basicAuth('merchant', 'another-wrong-one')).expect(429);
    // The right password from the same address: never refused, and it clears that address's count.
    await create(s.merchant).expect(201);
    await create(wrongMerchant).expect(401);
    // Other names and keys from the same address were never touched.
    await create(s.apiKey).expect(201);
    await t.http().get('/b/checkout/v1/admin/config/').set('Authorization', adminAuth()).expect(200);
  });

  it('still answers the public retrieve while throttled', async () => {
    await cleared();
    for (let i = 0; i < LIMIT; i++) await create(wrongMerchant).expect(401);
    await create(wrongMerchant).expect(429);
    await t.http().get(`${PATH}${sessionId}/`).set('Authorization', s.merchant).expect(200);
  });

  it('answers wrong credentials 401 again once the window has passed', async () => {
    await cleared();
    for (let i = 0; i < LIMIT; i++) await create(wrongMerchant).expect(401);
    await create(wrongMerchant).expect(429);
    await waitForWindow();
    await create(wrongMerchant).expect(401);
    await create(s.merchant).expect(201);
  });

  it('does not lock the admin out because of wrong passwords from another address (the issue)', async () => {
    for (let i = 0; i < LIMIT; i++)
      assert.equal((await createFrom(OTHER, basicAuth(ADMIN.username, 'guess'))).status, 401);
    assert.equal((await createFrom(OTHER, basicAuth(ADMIN.username, 'guess'))).status, 429);
    // The real admin, from 127.0.0.1: the API, a wrong guess of their own (401, not 429), /metrics.
    await t.http().get('/b/checkout/v1/admin/config/').set('Authorization', adminAuth()).expect(200);
    await t
      .http()
      .get('/b/checkout/v1/admin/config/')
      .set('Authorization', basicAuth(ADMIN.username, 'typo'))
      .expect(401);
    await t.http().get('/metrics').set('Authorization', adminAuth()).expect(200);
    // And from the locked address itself, the right password still works.
    const fromOther = await requestFrom(t.url, OTHER, {
      path: '/b/checkout/v1/admin/config/',
      headers: { Authorization: adminAuth() },
    });
    assert.equal(fromOther.status, 200);
    assert.equal((await createFrom(OTHER, basicAuth(ADMIN.username, 'guess'))).status, 401, 'count cleared');
  });

  it('counts wrong secrets of a real API key per address, and never refuses the key itself', async () => {
    const prefix = s.apiKey.slice('Api-Key '.length).split('.')[0];
    const wrongSecret = apiKeyAuth(`${prefix}.${'w'.repeat(43)}`);
    for (let i = 0; i < LIMIT; i++) assert.equal((await createFrom(OTHER, wrongSecret)).status, 401);
    const locked = await createFrom(OTHER, wrongSecret);
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers['retry-after']) >= 1);
    await create(s.apiKey).expect(201);
    await create(wrongSecret).expect(401);
    assert.equal((await createFrom(OTHER, s.apiKey)).status, 201);
  });

  it('counts wrong metrics tokens per address; the right token always reads', async () => {
    const wrong = 'Bearer not-the-metrics-token';
    for (let i = 0; i < LIMIT; i++)
      assert.equal(
        (await requestFrom(t.url, OTHER, { path: '/metrics', headers: { Authorization: wrong } })).status,
        401,
      );
    assert.equal(
      (await requestFrom(t.url, OTHER, { path: '/metrics', headers: { Authorization: wrong } })).status,
      429,
    );
    await t.http().get('/metrics').set('Authorization', wrong).expect(401);
    await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    const right = await requestFrom(t.url, OTHER, {
      path: '/metrics',
      headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(right.status, 200);
  });

  it('stays below the limit when failures are fewer than the limit', async () => {
    await cleared();
    for (let i = 0; i < LIMIT - 1; i++) await create(wrongMerchant).expect(401);
    await create(s.merchant).expect(201);
    for (let i = 0; i < LIMIT - 1; i++) await create(wrongMerchant).expect(401);
  });

  it('takes the address from the peer: X-Forwarded-For is ignored without TRUST_PROXY', async () => {
    await cleared();
    for (let i = 0; i < LIMIT; i++)
      await create(wrongMerchant).set('X-Forwarded-For', `198.51.100.${i}`).expect(401);
    await create(wrongMerchant).set('X-Forwarded-For', '198.51.100.99').expect(429);
    // API keys, the console sign-in and the metrics token alike.
    const unknownKey = apiKeyAuth(`zzzzzzzz.${'z'.repeat(43)}`);
    for (let i = 0; i < LIMIT; i++)
      await create(unknownKey).set('X-Forwarded-For', `198.51.100.${i}`).expect(401);
    await create(unknownKey).set('X-Forwarded-For', '198.51.100.99').expect(429);
    for (let i = 0; i < LIMIT; i++)
      await consoleSignIn(t, 'nobody', 'guess', { headers: { 'X-Forwarded-For': `198.51.100.${i}` } }).expect(
        401,
      );
    await consoleSignIn(t, 'nobody', 'guess', { headers: { 'X-Forwarded-For': '198.51.100.99' } }).expect(
      429,
    );
    await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200); // clears
    const wrongToken = 'Bearer not-the-metrics-token';
    for (let i = 0; i < LIMIT; i++)
      await t
        .http()
        .get('/metrics')
        .set('Authorization', wrongToken)
        .set('X-Forwarded-For', `198.51.100.${i}`)
        .expect(401);
    await t
      .http()
      .get('/metrics')
      .set('Authorization', wrongToken)
      .set('X-Forwarded-For', '198.51.100.99')
      .expect(429);
  });
});

/** TRUST_PROXY: the client is the `X-Forwarded-For` hop it names, for every door. */
describe('throttling behind a proxy (TRUST_PROXY=1)', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp({
      env: {
        AUTH_FAILURE_LIMIT: String(LIMIT),
        AUTH_FAILURE_WINDOW_SECONDS: '60',
        METRICS_TOKEN,
        TRUST_PROXY: '1',
      },
    });
    s = await seedBasics(t);
  });
  after(() => t.close());

  const create = (auth: string, forwardedFor?: string) => {
    const req = t.http().post(PATH).set('Authorization', auth);
    return (forwardedFor ? req.set('X-Forwarded-For', forwardedFor) : req).send(transactionBody());
  };
  const wrongMerchant = basicAuth('merchant', 'wrong-password');

  it('counts per forwarded client: the proxy’s other clients keep their budget', async () => {
    for (let i = 0; i < LIMIT; i++) await create(wrongMerchant, '203.0.113.5').expect(401);
    await create(wrongMerchant, '203.0.113.5').expect(429);
    await create(wrongMerchant, '203.0.113.6').expect(401);
    await create(wrongMerchant).expect(401); // no header: the peer itself
    await create(s.merchant, '203.0.113.5').expect(201);
  });

  it('counts API keys per forwarded client', async () => {
    const prefix = s.apiKey.slice('Api-Key '.length).split('.')[0];
    const wrongSecret = apiKeyAuth(`${prefix}.${'w'.repeat(43)}`);
    for (let i = 0; i < LIMIT; i++) await create(wrongSecret, '203.0.113.12').expect(401);
    await create(wrongSecret, '203.0.113.12').expect(429);
    await create(wrongSecret, '203.0.113.13').expect(401);
    await create(s.apiKey, '203.0.113.12').expect(201);
  });

  it('takes the hop the proxy wrote, not what the client wrote before it', async () => {
    for (let i = 0; i < LIMIT; i++) await create(wrongMerchant, `10.9.9.${i}, 203.0.113.7`).expect(401);
    await create(wrongMerchant, '10.9.9.99, 203.0.113.7').expect(429);
  });

  it('counts console sign-ins per forwarded client, and never refuses the right password', async () => {
    for (let i = 0; i < LIMIT; i++)
      await consoleSignIn(t, ADMIN.username, 'guess', {
        headers: { 'X-Forwarded-For': '203.0.113.8' },
      }).expect(401);
    const locked = await consoleSignIn(t, ADMIN.username, 'guess', {
      headers: { 'X-Forwarded-For': '203.0.113.8' },
    }).expect(429);
    assert.ok(Number(locked.headers['retry-after']) >= 1);
    await consoleSignIn(t, ADMIN.username, 'guess', { headers: { 'X-Forwarded-For': '203.0.113.9' } }).expect(
      401,
    );
    // Basic auth shares the counter of that client and name.
    await t
      .http()
      .get('/b/checkout/v1/admin/config/')
      .set('Authorization', basicAuth(ADMIN.username, 'guess'))
      .set('X-Forwarded-For', '203.0.113.8')
      .expect(429);
    for (const client of ['203.0.113.8', '203.0.113.9']) {
      const res = await consoleSignIn(t, ADMIN.username, ADMIN.password, {
        headers: { 'X-Forwarded-For': client },
      }).expect(303);
      assert.ok(sessionTokenOf(res), client);
    }
  });

  it('counts wrong metrics tokens per forwarded client', async () => {
    const wrong = 'Bearer not-the-metrics-token';
    for (let i = 0; i < LIMIT; i++)
      await t
        .http()
        .get('/metrics')
        .set('Authorization', wrong)
        .set('X-Forwarded-For', '203.0.113.10')
        .expect(401);
    await t
      .http()
      .get('/metrics')
      .set('Authorization', wrong)
      .set('X-Forwarded-For', '203.0.113.10')
      .expect(429);
    await t
      .http()
      .get('/metrics')
      .set('Authorization', wrong)
      .set('X-Forwarded-For', '203.0.113.11')
      .expect(401);
    await t
      .http()
      .get('/metrics')
      .set('Authorization', `Bearer ${METRICS_TOKEN}`)
      .set('X-Forwarded-For', '203.0.113.10')
      .expect(200);
  });
});
