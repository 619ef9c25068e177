import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { IdempotencyKey } from '../../src/idempotency/idempotency-key.entity';
import { CLAIM_LEASE_MS, IdempotencyService, KEY_TTL_MS } from '../../src/idempotency/idempotency.service';
import { Transaction } from '../../src/transactions/transaction.entity';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { TXN_PATH, txnPath } from '../transactions/helpers';

const IN_FLIGHT = { detail: 'A request with this Idempotency-Key is still being processed; retry later.' };
const MISMATCH = { detail: 'This Idempotency-Key was already used with a different request body.' };
const HOUR = 60 * 60 * 1000;

describe('Idempotency-Key under concurrency, leases and expiry (contract §11)', () => {
  let t: TestApp;
  let s: Seeded;
  let seq = 0;
  const newKey = () => `conc-${++seq}-${Date.now()}`;

  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const db = () => t.app.get(DataSource);
  const transactions = () => db().getRepository(Transaction).count();
  const keyRows = () => db().getRepository(IdempotencyKey);
  const create = (key: string, body: object = transactionBody()) =>
    t.http().post(TXN_PATH).set('Authorization', s.apiKey).set('Idempotency-Key', key).send(body);

  it('ten concurrent identical creates make exactly one transaction; the others replay it or get 409', async () => {
    for (let round = 0; round < 3; round++) {
      const key = newKey();
      const before = await transactions();
      const answers = await Promise.all(Array.from({ length: 10 }, () => create(key)));
      assert.equal(await transactions(), before + 1, `round ${round}`);
      const created = answers.filter((r) => r.status === 201);
      const originals = created.filter((r) => r.headers['idempotent-replayed'] === undefined);
      assert.equal(originals.length, 1, answers.map((r) => r.status).join(','));
      for (const r of created) assert.equal(r.text, originals[0].text);
      for (const r of answers.filter((a) => a.status !== 201)) {
        assert.equal(r.status, 409);
        assert.deepEqual(r.body, IN_FLIGHT);
      }
      // Once the first has finished, every repeat replays it.
      const later = await create(key).expect(201);
      assert.equal(later.headers['idempotent-replayed'], 'true');
      assert.equal(later.text, originals[0].text);
    }
  });

  it('ten concurrent identical updates apply once', async () => {
    const { body: tx } = await t
      .http()
      .post(TXN_PATH)
      .set('Authorization', s.apiKey)
      .send(transactionBody())
      .expect(201);
    const sessionId = String(tx.session_id);
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        t
          .http()
          .patch(txnPath(sessionId))
          .set('Authorization', s.apiKey)
          .set('Idempotency-Key', key)
          .send({ customer_first_name: 'Once' }),
      ),
    );
    const applied = answers.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
    assert.equal(applied.length, 1, answers.map((r) => r.status).join(','));
    for (const r of answers) assert.ok(r.status === 200 || r.status === 409, String(r.status));
    const row = await db().getRepository(Transaction).findOneByOrFail({ sessionId });
    assert.equal(row.version, 2);
  });

  it('answers 409 while the first request still holds the key, creating nothing', async () => {
    const key = newKey();
    await create(key).expect(201);
    // Put the key back in flight, as a request that is still running would hold it.
    await keyRows().update(
      { key },
      { status: 'in_flight', lockedUntil: new Date(Date.now() + CLAIM_LEASE_MS) },
    );
    const before = await transactions();
    const busy = await create(key).expect(409);
    assert.deepEqual(busy.body, IN_FLIGHT);
    assert.equal(busy.headers['idempotent-replayed'], undefined);
    // Another body while in flight is still "another body".
    assert.deepEqual((await create(key, transactionBody({ amount: '1.000' })).expect(422)).body, MISMATCH);
    assert.equal(await transactions(), before);
  });

  it('takes over a key whose request died (lease run out) and runs the request', async () => {
    const key = newKey();
    const first = await create(key).expect(201);
    await keyRows().update({ key }, { status: 'in_flight', lockedUntil: new Date(Date.now() - 1000) });
    const before = await transactions();
    const rerun = await create(key).expect(201);
    assert.equal(rerun.headers['idempotent-replayed'], undefined);
    assert.notEqual(rerun.body.session_id, first.body.session_id);
    assert.equal(await transactions(), before + 1);
    const row = await keyRows().findOneByOrFail({ key });
    assert.equal(row.status, 'done');
    const replay = await create(key).expect(201);
    assert.equal(replay.text, rerun.text);
  });

  it('treats a key older than 24 hours as unused: another body creates, and then replays', async () => {
    const key = newKey();
    await create(key).expect(201);
    await keyRows().update({ key }, { createdAt: new Date(Date.now() - KEY_TTL_MS - 1000) });
    const before = await transactions();
    const fresh = await create(key, transactionBody({ amount: '2.000' })).expect(201);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.equal(fresh.body.amount, '2.000');
    assert.equal(await transactions(), before + 1);
    const again = await create(key, transactionBody({ amount: '2.000' })).expect(201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, fresh.text);
    assert.equal(await keyRows().countBy({ key }), 1);
  });

  it('still replays a key just inside 24 hours', async () => {
    const key = newKey();
    const first = await create(key).expect(201);
    await keyRows().update({ key }, { createdAt: new Date(Date.now() - KEY_TTL_MS + 60_000) });
    const again = await create(key).expect(201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, first.text);
  });

  it('sweeps keys older than 24 hours and keeps younger ones', async () => {
    const old = newKey();
    const young = newKey();
    await create(old).expect(201);
    await create(young).expect(201);
    await keyRows().update({ key: old }, { createdAt: new Date(Date.now() - 25 * HOUR) });
    await keyRows().update({ key: young }, { createdAt: new Date(Date.now() - 23 * HOUR) });
    const deleted = await t.app.get(IdempotencyService).sweepExpired();
    assert.ok(deleted >= 1);
    assert.equal(await keyRows().countBy({ key: old }), 0);
    assert.equal(await keyRows().countBy({ key: young }), 1);
  });
});
