import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, apiKeyAuth, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';

const KEYS = '/b/checkout/v1/admin/api-keys/';
const TXN = '/b/checkout/v1/pymt-txn/';
const CACHE_MS = 3000;

/**
 * Verified API keys are kept per replica for API_KEY_CACHE_MS: a revocation applies at
 * once on the replica that made it and within the cache time on the others; expiry is checked on
 * every request.
 */
describe('API keys verified from the per-replica cache', () => {
  let a: TestApp;
  let b: TestApp | undefined;
  before(async () => {
    a = await startApp({ env: { API_KEY_CACHE_MS: String(CACHE_MS) } });
    await seedBasics(a);
  });
  after(async () => {
    await b?.app.close();
    await a.close();
  });

  const issue = async (body: object = {}) =>
    (
      await a
        .http()
        .post(KEYS)
        .set('Authorization', adminAuth())
        .send({ name: 'cached', ...body })
        .expect(201)
    ).body as { id: number; key: string };
  const create = (app: TestApp, key: string) =>
    app.http().post(TXN).set('Authorization', apiKeyAuth(key)).send(transactionBody());
  const revoke = (id: number) =>
    a.http().delete(`${KEYS}${id}/`).set('Authorization', adminAuth()).expect(204);

  it('a key used (and so cached) then revoked is refused at once on the replica that revoked it', async () => {
    const { id, key } = await issue();
    await create(a, key).expect(201);
    await revoke(id);
    await create(a, key).expect(401);
  });

  it('a cached key still checks its secret: a wrong secret with a cached prefix is refused', async () => {
    const { key } = await issue();
    await create(a, key).expect(201);
    const [prefix, secret] = key.split('.');
    const wrong = `${prefix}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    await create(a, wrong).expect(401);
  });

  it('a cached key stops working when it expires', async () => {
    const { key } = await issue({ expires_at: new Date(Date.now() + 1200).toISOString() });
    await create(a, key).expect(201);
    await sleep(1300);
    await create(a, key).expect(401);
  });

  // Two replicas need the shared MySQL database (the MySQL leg is mandatory in CI).
  if (testDbKind() !== 'mysql') return;

  it('another replica trusts its cached copy, then honours the revocation within the cache time', async () => {
    // Started last: passport keeps strategies in one process-wide registry, so once b runs in this
    // process, a's requests are verified by b's strategy (and cache) too. Real replicas are processes.
    const replica = await startApp({ env: { API_KEY_CACHE_MS: String(CACHE_MS) }, db: a.db });
    b = replica;
    const { id, key } = await issue();
    const cachedAt = Date.now();
    await create(replica, key).expect(201); // read and cached on b
    await revoke(id);
    const revokedAt = Date.now();
    if (revokedAt - cachedAt < CACHE_MS / 2) {
      await create(replica, key).expect(201); // b has not asked the database again
    }
    let refusedAfter: number | null = null;
    while (Date.now() - revokedAt < CACHE_MS + 2000) {
      if ((await create(replica, key)).status === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
      await sleep(100);
    }
    assert.ok(refusedAfter !== null, 'b never refused the revoked key');
    assert.ok(refusedAfter <= CACHE_MS + 500, `refused only after ${refusedAfter} ms`);
    await create(a, key).expect(401);
  });
});
