import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createErrors, createTransaction, forceState, postTransaction, txnPath } from './helpers';

const TAKEN = { order_no: ['A live transaction with this order_no already exists.'] };

/** contract §4 `order_no`: unique among live transactions; canceled and expired ones release it. */
describe('order_no uniqueness among live transactions', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  it('refuses a second create with the order_no of a live transaction', async () => {
    await createTransaction(t, s, { order_no: 'ORD-1' });
    assert.deepEqual(await createErrors(t, s, { order_no: 'ORD-1' }), TAKEN);
  });

  it('compares order numbers case-sensitively, with surrounding spaces trimmed', async () => {
    await createTransaction(t, s, { order_no: 'ORD-case' });
    assert.equal((await createTransaction(t, s, { order_no: 'ord-case' })).order_no, 'ord-case');
    assert.deepEqual(await createErrors(t, s, { order_no: ' ORD-case ' }), TAKEN);
    assert.equal((await createTransaction(t, s, { order_no: '  ORD-trimmed\t' })).order_no, 'ORD-trimmed');
  });

  for (const state of ['canceled', 'expired'] as const) {
    it(`allows the order_no again once the earlier transaction is ${state}`, async () => {
      const orderNo = `ORD-${state}`;
      const first = await createTransaction(t, s, { order_no: orderNo });
      await forceState(t, first.session_id, state);
      const second = await createTransaction(t, s, { order_no: orderNo });
      assert.equal(second.order_no, orderNo);
      assert.notEqual(second.session_id, first.session_id);
      // The released transaction still shows its order_no.
      const released = await t.http().get(txnPath(first.session_id)).expect(200);
      assert.equal(released.body.order_no, orderNo);
      assert.equal(released.body.state, state);
      // The new one is live: a third is refused.
      assert.deepEqual(await createErrors(t, s, { order_no: orderNo }), TAKEN);
    });
  }

  for (const state of ['failed', 'error', 'paid', 'authorized', 'captured', 'refunded', 'voided'] as const) {
    it(`keeps blocking the order_no while the earlier transaction is ${state}`, async () => {
      const orderNo = `ORD-live-${state}`;
      const first = await createTransaction(t, s, { order_no: orderNo });
      await forceState(t, first.session_id, state);
      assert.deepEqual(await createErrors(t, s, { order_no: orderNo }), TAKEN);
    });
  }

  it('stays blocked while any one earlier transaction with it is live', async () => {
    const a = await createTransaction(t, s, { order_no: 'ORD-many' });
    await forceState(t, a.session_id, 'canceled');
    const b = await createTransaction(t, s, { order_no: 'ORD-many' });
    assert.deepEqual(await createErrors(t, s, { order_no: 'ORD-many' }), TAKEN);
    await forceState(t, b.session_id, 'expired');
    assert.equal((await createTransaction(t, s, { order_no: 'ORD-many' })).order_no, 'ORD-many');
  });

  it('lets exactly one of ten concurrent creates with one order_no win', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => postTransaction(t, s, transactionBody({ order_no: 'ORD-race' }))),
    );
    const statuses = responses.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of responses.filter((r) => r.status === 400)) assert.deepEqual(res.body, TAKEN);
  });

  describe('on update', () => {
    const patch = (sessionId: string, body: object) =>
      t.http().patch(txnPath(sessionId)).set('Authorization', s.apiKey).send(body);

    it('refuses an order_no held by another live transaction, and writes nothing', async () => {
      await createTransaction(t, s, { order_no: 'ORD-other' });
      const mine = await createTransaction(t, s, { order_no: 'ORD-mine' });
      const res = await patch(mine.session_id, { order_no: 'ORD-other', amount: '1' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, TAKEN);
      const after = await t.http().get(txnPath(mine.session_id)).expect(200);
      assert.equal(after.body.order_no, 'ORD-mine');
      assert.equal(after.body.amount, '86.000');
    });

    it('keeps its own order_no when other fields change', async () => {
      const mine = await createTransaction(t, s, { order_no: 'ORD-keep' });
      const res = await patch(mine.session_id, { order_no: 'ORD-keep', amount: '2' }).expect(200);
      assert.equal(res.body.order_no, 'ORD-keep');
      assert.equal(res.body.amount, '2.000');
    });

    it('takes an order_no released by a canceled transaction, and frees the old one', async () => {
      const old = await createTransaction(t, s, { order_no: 'ORD-freed' });
      await forceState(t, old.session_id, 'canceled');
      const mine = await createTransaction(t, s, { order_no: 'ORD-before' });
      const res = await patch(mine.session_id, { order_no: 'ORD-freed' }).expect(200);
      assert.equal(res.body.order_no, 'ORD-freed');
      // Its former order_no is free again.
      assert.equal((await createTransaction(t, s, { order_no: 'ORD-before' })).order_no, 'ORD-before');
    });

    it('releases the order_no when cleared with null', async () => {
      const mine = await createTransaction(t, s, { order_no: 'ORD-cleared' });
      const res = await patch(mine.session_id, { order_no: null }).expect(200);
      assert.equal(res.body.order_no, null);
      assert.equal((await createTransaction(t, s, { order_no: 'ORD-cleared' })).order_no, 'ORD-cleared');
    });

    it('lets only one of two concurrent updates take the same order_no', async () => {
      const a = await createTransaction(t, s);
      const b = await createTransaction(t, s);
      const [ra, rb] = await Promise.all([
        patch(a.session_id, { order_no: 'ORD-update-race' }),
        patch(b.session_id, { order_no: 'ORD-update-race' }),
      ]);
      assert.deepEqual([ra.status, rb.status].sort(), [200, 400]);
      assert.deepEqual((ra.status === 400 ? ra : rb).body, TAKEN);
    });
  });
});
