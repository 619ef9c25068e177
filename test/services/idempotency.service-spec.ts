import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IdempotencyKey } from '../../src/idempotency/idempotency-key.entity';
import type { KeyRef } from '../../src/idempotency/idempotency-keys.repository';
import { IdempotencyModule } from '../../src/idempotency/idempotency.module';
import { IdempotencyService, KEY_TTL_MS, type HeldClaim } from '../../src/idempotency/idempotency.service';
import { createServiceContext, type ServiceContext } from '../setup/service-context';

const ROUTE = 'POST /b/checkout/v1/pymt-txn/';
const RESPONSE = { status: 201, headers: { etag: '"1"' }, body: '{"session_id":"x"}' };

/** IdempotencyService (contract §11): claim, replay, conflict, leases, 24 h, sweep. */
describe('IdempotencyService', () => {
  let ctx: ServiceContext;
  let keys: IdempotencyService;
  let seq = 0;
  const ref = (scope = 'key:1'): KeyRef => ({ scope, key: `svc-key-${++seq}`, route: ROUTE });
  const rows = () => ctx.dataSource.getRepository(IdempotencyKey);

  async function held(r: KeyRef, fingerprint: string): Promise<HeldClaim> {
    const claim = await keys.claim(r, fingerprint);
    assert.equal(claim.kind, 'claimed');
    return claim;
  }

  before(async () => {
    ctx = await createServiceContext({ imports: [IdempotencyModule] });
    keys = ctx.get(IdempotencyService);
  });
  after(() => ctx.close());

  it('the same key and body after completion replays the stored response', async () => {
    const r = ref();
    await keys.complete(await held(r, 'body-a'), RESPONSE);
    assert.deepEqual(await keys.claim(r, 'body-a'), { kind: 'replay', response: RESPONSE });
    const row = await rows().findOneByOrFail({ key: r.key });
    assert.equal(row.status, 'done');
    assert.equal(row.responseStatus, 201);
  });

  it('the same key with a different body is a mismatch (422), in flight or done', async () => {
    const r = ref();
    const claim = await held(r, 'body-a');
    assert.deepEqual(await keys.claim(r, 'body-b'), { kind: 'mismatch' });
    await keys.complete(claim, RESPONSE);
    assert.deepEqual(await keys.claim(r, 'body-b'), { kind: 'mismatch' });
  });

  it('a repeat while the first request runs is in flight (409)', async () => {
    const r = ref();
    await held(r, 'body-a');
    assert.deepEqual(await keys.claim(r, 'body-a'), { kind: 'in_flight' });
  });

  it('ten identical claims at once: exactly one holds the key', async () => {
    const r = ref();
    const claims = await Promise.all(Array.from({ length: 10 }, () => keys.claim(r, 'body-a')));
    assert.equal(claims.filter((c) => c.kind === 'claimed').length, 1);
    assert.equal(claims.filter((c) => c.kind === 'in_flight').length, 9);
    assert.equal(await rows().countBy({ key: r.key }), 1);
  });

  it('a key is scoped to its credential and route', async () => {
    const r = ref('key:1');
    await keys.complete(await held(r, 'body-a'), RESPONSE);
    assert.equal((await keys.claim({ ...r, scope: 'user:7' }, 'body-b')).kind, 'claimed');
    assert.equal((await keys.claim({ ...r, route: 'PATCH x' }, 'body-b')).kind, 'claimed');
  });

  it('release frees the key: the next request with it runs', async () => {
    const r = ref();
    await keys.release(await held(r, 'body-a'));
    assert.equal(await rows().countBy({ key: r.key }), 0);
    assert.equal((await keys.claim(r, 'body-b')).kind, 'claimed');
  });

  it('a claim whose lease ran out (its request died) is taken over; the old holder cannot complete it', async () => {
    const r = ref();
    const dead = await held(r, 'body-a');
    await rows().update({ key: r.key }, { lockedUntil: new Date(Date.now() - 1000) });
    const next = await held(r, 'body-a');
    assert.notEqual(next.token, dead.token);
    await keys.complete(dead, { ...RESPONSE, status: 500 });
    assert.equal((await rows().findOneByOrFail({ key: r.key })).status, 'in_flight');
    await keys.complete(next, RESPONSE);
    assert.deepEqual(await keys.claim(r, 'body-a'), { kind: 'replay', response: RESPONSE });
  });

  it('after 24 h a key counts as absent: claimed again, whatever the body', async () => {
    const r = ref();
    await keys.complete(await held(r, 'body-a'), RESPONSE);
    await rows().update({ key: r.key }, { createdAt: new Date(Date.now() - KEY_TTL_MS - 60_000) });
    assert.equal((await keys.claim(r, 'body-b')).kind, 'claimed');
    assert.equal(await rows().countBy({ key: r.key }), 1);
  });

  it('sweepExpired deletes the keys older than 24 h and only those', async () => {
    await rows().clear();
    const old = Array.from({ length: 7 }, () => ref());
    const fresh = Array.from({ length: 3 }, () => ref());
    for (const r of [...old, ...fresh]) await keys.complete(await held(r, 'body'), RESPONSE);
    for (const r of old) {
      await rows().update({ key: r.key }, { createdAt: new Date(Date.now() - KEY_TTL_MS - 60_000) });
    }
    assert.equal(await keys.sweepExpired(), 7);
    assert.deepEqual((await rows().find()).map((row) => row.key).sort(), fresh.map((r) => r.key).sort());
    assert.equal(await keys.sweepExpired(), 0);
  });
});
