import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminAuth, basicAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const BASE = '/b/checkout/v1/admin';
type Method = 'get' | 'post' | 'patch' | 'delete';

/** Every admin route (contract §8 without the events routes), with a path that names a real row. */
const ROUTES: Array<[Method, string]> = [
  ['get', '/config/'],
  ['patch', '/config/'],
  ['get', '/currencies/'],
  ['post', '/currencies/'],
  ['delete', '/currencies/KWD/'],
  ['get', '/gateways/'],
  ['post', '/gateways/'],
  ['get', '/gateways/sandbox/'],
  ['patch', '/gateways/sandbox/'],
  ['delete', '/gateways/sandbox/'],
  ['get', '/gateway-drivers/'],
  ['get', '/api-keys/'],
  ['post', '/api-keys/'],
  ['delete', '/api-keys/1/'],
  ['get', '/users/'],
  ['post', '/users/'],
  ['patch', '/users/1/'],
  ['delete', '/users/1/'],
];

describe('admin API access: only Basic auth of an active admin user', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  for (const [method, path] of ROUTES) {
    const route = `${method.toUpperCase()} ${path}`;

    it(`${route}: no credentials → 401 with WWW-Authenticate`, async () => {
      const res = await t
        .http()
        [method](BASE + path)
        .send({});
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { detail: 'Authentication credentials were not provided.' });
      assert.equal(res.headers['www-authenticate'], 'Basic realm="checkout"');
    });

    it(`${route}: a non-admin user → 403`, async () => {
      const res = await t
        .http()
        [method](BASE + path)
        .set('Authorization', s.merchant)
        .send({});
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { detail: 'You do not have permission to perform this action.' });
    });

    it(`${route}: an API key → 401 (the admin API takes Basic auth only)`, async () => {
      const res = await t
        .http()
        [method](BASE + path)
        .set('Authorization', s.apiKey)
        .send({});
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, {
        detail: 'API key authentication is not accepted here; use Basic.',
      });
      assert.equal(res.headers['www-authenticate'], 'Basic realm="checkout"');
    });
  }

  it('refuses a wrong admin password with 401', async () => {
    const res = await t
      .http()
      .get(`${BASE}/config/`)
      .set('Authorization', basicAuth('admin', 'not-the-password'))
      .expect(401);
    assert.deepEqual(res.body, { detail: 'Invalid username or password.' });
    assert.equal(res.headers['www-authenticate'], 'Basic realm="checkout"');
  });

  it('lets an admin in, and answers without the trailing slash too', async () => {
    await t.http().get(`${BASE}/config/`).set('Authorization', adminAuth()).expect(200);
    await t.http().get(`${BASE}/config`).set('Authorization', adminAuth()).expect(200);
  });

  it('lets in a user made admin through the API, and shuts it out once demoted', async () => {
    const created = await t
      .http()
      .post(`${BASE}/users/`)
      .set('Authorization', adminAuth())
      .send({ username: 'second-admin', password: 'second-pass-1', is_admin: true })
      .expect(201);
    const second = basicAuth('second-admin', 'second-pass-1');
    await t.http().get(`${BASE}/users/`).set('Authorization', second).expect(200);
    await t
      .http()
      .patch(`${BASE}/users/${created.body.id}/`)
      .set('Authorization', adminAuth())
      .send({ is_admin: false })
      .expect(200);
    await t.http().get(`${BASE}/users/`).set('Authorization', second).expect(403);
  });

  it('answers an unknown admin route with a JSON 404', async () => {
    const res = await t.http().get(`${BASE}/nothing-here/`).set('Authorization', adminAuth()).expect(404);
    assert.deepEqual(res.body, { detail: 'Not found.' });
  });
});
