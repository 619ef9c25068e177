import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import { FAST_DELIVERY_ENV, settled, transition, unitOf } from './event-helpers';

describe('deliveries while other requests commit and roll back', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({ env: FAST_DELIVERY_ENV });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  it('sends every committed event exactly once and records it as delivered', async () => {
    // Creates that commit (and poke the dispatcher) interleaved with creates that roll back
    // (a live order_no): the dispatcher's writes must never ride along in someone else's
    // transaction, or a rollback would undo "delivered" and the event would go out again.
    const create = (body: Record<string, unknown>) =>
      t.http().post('/b/checkout/v1/pymt-txn/').set('Authorization', s.apiKey).send(transactionBody(body));
    await create({ order_no: 'TAKEN' }).expect(201);
    const sessionIds: string[] = [];
    for (let round = 0; round < 4; round++) {
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          i % 2 === 0
            ? create({ webhook_url: hook.url })
            : create({ order_no: 'TAKEN', webhook_url: hook.url }),
        ),
      );
      for (const res of results) {
        if (res.status === 201) sessionIds.push(String((res.body as { session_id: string }).session_id));
        else assert.equal(res.status, 400);
      }
    }
    assert.equal(sessionIds.length, 32);
    for (const sessionId of sessionIds) {
      const [event] = await settled(t, sessionId);
      assert.equal(event.deliveries[0].status, 'delivered', sessionId);
      assert.equal(event.deliveries[0].attempts, 1, sessionId);
    }
    await new Promise((r) => setTimeout(r, 500));
    const perSession = new Map<string, number>();
    for (const r of hook.received) {
      const id = String(r.json.session_id);
      perSession.set(id, (perSession.get(id) ?? 0) + 1);
    }
    assert.equal(perSession.size, 32);
    assert.deepEqual(
      [...perSession.values()].filter((n) => n !== 1),
      [],
    );
  });

  it('a delivery poked by one commit is not undone by the next transaction rolling back', async () => {
    const create = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send(transactionBody({ webhook_url: hook.url }))
      .expect(201);
    const sessionId = String((create.body as { session_id: string }).session_id);
    await settled(t, sessionId);
    const before = hook.received.length;
    // T1 records `paid` and commits, which pokes the dispatcher; T2 starts right after, stays
    // open while the delivery goes out, then rolls back.
    await transition(t, sessionId, 'paid', 'paid', { result: 'success' }, { paidAmount: '86' });
    await assert.rejects(
      unitOf(t).run(async (manager) => {
        await manager.query('SELECT 1');
        await new Promise((r) => setTimeout(r, 800));
        throw new Error('T2 rolls back');
      }),
      /T2 rolls back/,
    );
    const events = await settled(t, sessionId);
    // longer than the lease (3 s): a delivery whose "delivered" was rolled back would go out again
    await new Promise((r) => setTimeout(r, 3500));
    const paid = hook.received.slice(before).filter((r) => r.json.event === 'paid');
    assert.equal(paid.length, 1);
    assert.equal(events[1].deliveries[0].status, 'delivered');
    const [again] = (await settled(t, sessionId)).slice(1);
    assert.equal(again.deliveries[0].attempts, 1);
  });

  it('gives concurrent events of one transaction distinct, consecutive sequence numbers', async () => {
    const res = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send(transactionBody({ amount: '100' }))
      .expect(201);
    const sessionId = String((res.body as { session_id: string }).session_id);
    // ten partial refunds at once, each in its own DB transaction
    await Promise.all(
      Array.from({ length: 10 }, () =>
        transition(t, sessionId, 'paid', 'refunded', { operation: 'refund', operationAmount: '1' }),
      ),
    );
    const events = await settled(t, sessionId);
    assert.deepEqual(
      events.map((e) => e.sequence),
      Array.from({ length: 11 }, (_, i) => i + 1),
    );
  });
});
