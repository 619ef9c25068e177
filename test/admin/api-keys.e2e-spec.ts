import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, apiKeyAuth, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/admin/api-keys/';
const TXN = '/b/checkout/v1/pymt-txn/';

describe('admin API keys: GET, POST api-keys/ and DELETE api-keys/{id}/', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
    await seedBasics(t);
  });
  after(() => t.close());

  const post = (body: unknown) =>
    t
      .http()
      .post(PATH)
      .set('Authorization', adminAuth())
      .send(body as object);
  const list = async () =>
    (await t.http().get(PATH).set('Authorization', adminAuth()).expect(200)).body as Array<
      Record<string, unknown>
    >;
  const createTxn = (key: string) =>
    t.http().post(TXN).set('Authorization', apiKeyAuth(key)).send(transactionBody());

  it('issues a key that works at once, shown only in the create answer', async () => {
    const res = await post({ name: 'shop backend' }).expect(201);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'created_at',
      'expires_at',
      'id',
      'key',
      'name',
      'prefix',
    ]);
    assert.equal(res.body.name, 'shop backend');
    assert.equal(res.body.expires_at, null);
    assert.match(res.body.prefix, /^[a-z0-9]{8}$/);
    assert.match(res.body.key, new RegExp(`^${res.body.prefix}\\.[A-Za-z0-9_-]{32,}$`));
    assert.equal(typeof res.body.id, 'number');
    await createTxn(res.body.key).expect(201);

    const listed = (await list()).find((k) => k.id === res.body.id);
    assert.deepEqual(listed, {
      id: res.body.id,
      name: 'shop backend',
      prefix: res.body.prefix,
      created_at: res.body.created_at,
      expires_at: null,
      revoked_at: null,
    });
    const secret = String(res.body.key).split('.')[1];
    const all = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.ok(!all.text.includes(secret), 'the list never shows a secret');
  });

  it('issues a key with an expiry in the future; it stops working once past it', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const res = await post({ name: 'short-lived', expires_at: expiresAt }).expect(201);
    assert.equal(res.body.expires_at, expiresAt);
    await createTxn(res.body.key).expect(201);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const refused = await createTxn(res.body.key).expect(401);
    assert.deepEqual(refused.body, { detail: 'Invalid API key.' });
  });

  it('accepts an explicit null expiry (never expires) and an offset time zone', async () => {
    assert.equal((await post({ name: 'forever', expires_at: null }).expect(201)).body.expires_at, null);
    const res = await post({ name: 'offset', expires_at: '2099-01-01T12:00:00+03:00' }).expect(201);
    assert.equal(res.body.expires_at, '2099-01-01T09:00:00.000Z');
  });

  it('refuses an expiry in the past, a malformed one and one without a time zone', async () => {
    assert.deepEqual((await post({ name: 'past', expires_at: '2001-01-01T00:00:00Z' }).expect(400)).body, {
      expires_at: ['Ensure this date-time is in the future.'],
    });
    const format = 'Datetime has wrong format. Use ISO 8601, e.g. 2030-01-31T12:00:00Z.';
    for (const value of ['tomorrow', '2099-13-01T00:00:00Z', '2099-01-01T00:00:00', 42]) {
      assert.deepEqual((await post({ name: 'bad', expires_at: value }).expect(400)).body, {
        expires_at: [format],
      });
    }
  });

  it('takes a name of 100 characters and refuses 101, blank and a missing name', async () => {
    await post({ name: 'k'.repeat(100) }).expect(201);
    assert.deepEqual((await post({ name: 'k'.repeat(101) }).expect(400)).body, {
      name: ['Ensure this field has no more than 100 characters.'],
    });
    assert.deepEqual((await post({ name: '' }).expect(400)).body, { name: ['This field may not be blank.'] });
    assert.deepEqual((await post({}).expect(400)).body, { name: ['This field is required.'] });
  });

  it('revokes a key: it stops working, the row stays with revoked_at, revoking again changes nothing', async () => {
    const issued = await post({ name: 'to revoke' }).expect(201);
    const res = await t
      .http()
      .delete(`${PATH}${issued.body.id}/`)
      .set('Authorization', adminAuth())
      .expect(204);
    assert.equal(res.text, '');
    const refused = await createTxn(issued.body.key).expect(401);
    assert.deepEqual(refused.body, { detail: 'Invalid API key.' });
    const row = (await list()).find((k) => k.id === issued.body.id);
    assert.ok(row, 'the row stays');
    assert.match(String(row.revoked_at), /^\d{4}-\d{2}-\d{2}T/);
    await t.http().delete(`${PATH}${issued.body.id}/`).set('Authorization', adminAuth()).expect(204);
    assert.equal((await list()).find((k) => k.id === issued.body.id)?.revoked_at, row.revoked_at);
  });

  it('answers 404 when revoking an unknown or malformed id', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '99999999999']) {
      const res = await t.http().delete(`${PATH}${id}/`).set('Authorization', adminAuth()).expect(404);
      assert.deepEqual(res.body, { detail: 'Not found.' }, id);
    }
  });
});
