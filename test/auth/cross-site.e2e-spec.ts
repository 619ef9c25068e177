import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UsersService } from '../../src/auth/users/users.service';
import { TransactionsService } from '../../src/transactions/transactions.service';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const USERS = '/b/checkout/v1/admin/users/';
const TXN = '/b/checkout/v1/pymt-txn/';
const OPERATION = '/b/pbl/v2/operation/';
const METRICS_TOKEN = 'metrics-token-0123456789';
const CROSS_SITE = { detail: 'Cross-site requests are not allowed.' };
const EVIL = 'https://evil.example';

/**
 * contract §3 "No cross-site writes": a page of another site auto-posting a form, in a
 * browser that holds Basic credentials, must not write. Browsers mark such requests with
 * `Sec-Fetch-Site` and `Origin`; servers send neither and are unaffected.
 */
describe('cross-site requests to authenticated routes (403, nothing written)', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp({ env: { METRICS_TOKEN } });
    s = await seedBasics(t);
  });
  after(() => t.close());

  const userNames = async () => (await t.app.get(UsersService).list()).map((u) => u.username);
  /** The auto-posted form of the issue: a new admin, as `application/x-www-form-urlencoded`. */
  const newAdminForm = (username: string, headers: Record<string, string>) => {
    const req = t.http().post(USERS).set('Authorization', adminAuth()).type('form');
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send({ username, password: 'evil-pass-123', is_admin: 'true' });
  };

  it('refuses the form another site posts with the admin’s Basic credentials: no user created', async () => {
    const res = await newAdminForm('evil1', { Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' }).expect(403);
    assert.deepEqual(res.body, CROSS_SITE);
    assert.equal(res.headers['www-authenticate'], undefined);
    assert.ok(!(await userNames()).includes('evil1'));
  });

  it('refuses on either header alone: Sec-Fetch-Site cross-site, a foreign Origin, Origin null', async () => {
    const variants: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'cross-site' },
      { Origin: EVIL },
      { Origin: 'null' },
      { Origin: `${t.url}.evil.example` },
      { Origin: t.url.replace('http:', 'https:') },
      { 'Sec-Fetch-Site': 'same-site', Origin: 'http://other.127.0.0.1.nip.io' },
      { 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'same-origin', Origin: EVIL },
    ];
    for (const [i, headers] of variants.entries()) {
      const res = await newAdminForm(`evil-${i}`, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.deepEqual(res.body, CROSS_SITE);
    }
    assert.deepEqual(
      (await userNames()).filter((n) => n.startsWith('evil')),
      [],
    );
  });

  it('refuses multipart and JSON bodies too, and answers 403 before asking for credentials', async () => {
    const multipart = (headers: Record<string, string>) => {
      const req = t.http().post(TXN).set('Authorization', s.merchant);
      for (const [name, value] of Object.entries(headers)) req.set(name, value);
      for (const [name, value] of Object.entries(transactionBody({ order_no: 'cross-site-1' })))
        req.field(name, Array.isArray(value) ? value[0] : String(value));
      return req;
    };
    const refused = await multipart({ 'Sec-Fetch-Site': 'cross-site' }).expect(403);
    assert.deepEqual(refused.body, CROSS_SITE);
    await t.http().post(USERS).set('Origin', EVIL).send({ username: 'evil-anon', password: 'x' }).expect(403);
    await t
      .http()
      .post(TXN)
      .set('Authorization', s.apiKey)
      .set('Origin', EVIL)
      .send(transactionBody({ order_no: 'cross-site-1' }))
      .expect(403);
    const found = await t
      .http()
      .get('/b/checkout/v1/admin/pymt-txn/?order_no=cross-site-1')
      .set('Authorization', adminAuth())
      .expect(200);
    assert.deepEqual(found.body.results, []);
    assert.ok(!(await userNames()).some((n) => n.startsWith('evil')));
    await multipart({}).expect(201); // the same request from a server
  });

  it('keeps a Basic user’s cancel operation from another site from working', async () => {
    const created = await t
      .http()
      .post(TXN)
      .set('Authorization', s.merchant)
      .send(transactionBody())
      .expect(201);
    const sessionId = created.body.session_id as string;
    const cancel = (headers: Record<string, string>) => {
      const req = t.http().post(OPERATION).set('Authorization', s.merchant).type('form');
      for (const [name, value] of Object.entries(headers)) req.set(name, value);
      return req.send({ operation: 'cancel', session_id: sessionId });
    };
    const refused = await cancel({ Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' }).expect(403);
    assert.equal(refused.body.detail, CROSS_SITE.detail);
    assert.equal((await t.app.get(TransactionsService).get(sessionId)).state, 'created');
    await cancel({}).expect(200);
    assert.equal((await t.app.get(TransactionsService).get(sessionId)).state, 'canceled');
  });

  it('accepts the service’s own pages (same-origin, none) and servers that send neither header', async () => {
    await newAdminForm('own-page', { Origin: t.url, 'Sec-Fetch-Site': 'same-origin' }).expect(201);
    await newAdminForm('typed-url', { 'Sec-Fetch-Site': 'none' }).expect(201);
    await newAdminForm('own-origin', { Origin: t.url }).expect(201);
    await newAdminForm('sibling-own-origin', { Origin: t.url, 'Sec-Fetch-Site': 'same-site' }).expect(201);
    await newAdminForm('sdk-form', {}).expect(201);
    await t.http().post(TXN).set('Authorization', s.apiKey).send(transactionBody()).expect(201);
    for (const name of ['own-page', 'typed-url', 'own-origin', 'sibling-own-origin', 'sdk-form'])
      assert.ok((await userNames()).includes(name), name);
  });

  it('applies to /metrics, with the token and with Basic', async () => {
    for (const auth of [`Bearer ${METRICS_TOKEN}`, adminAuth()]) {
      const res = await t
        .http()
        .get('/metrics')
        .set('Authorization', auth)
        .set('Sec-Fetch-Site', 'cross-site');
      assert.equal(res.status, 403, auth.split(' ')[0]);
      assert.deepEqual(res.body, CROSS_SITE);
      await t
        .http()
        .get('/metrics')
        .set('Authorization', auth)
        .set('Sec-Fetch-Site', 'same-origin')
        .expect(200);
    }
  });

  it('leaves public routes alone: the retrieve answers any site', async () => {
    const created = await t
      .http()
      .post(TXN)
      .set('Authorization', s.apiKey)
      .send(transactionBody())
      .expect(201);
    await t
      .http()
      .get(`${TXN}${created.body.session_id}/`)
      .set('Origin', EVIL)
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(200);
  });
});
