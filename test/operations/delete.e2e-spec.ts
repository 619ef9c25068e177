import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { adminEvents, dataSourceOf, eventually, FAST_DELIVERY_ENV } from '../events/event-helpers';
import { leaveCrashedAttempt } from '../factories/crashed-attempts';
import { CREATE_PATH, TEST_CARDS, testPayPath, TransactionDriver } from '../factories/transaction-states';
import { transactionBody } from '../factories/transaction.factory';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';

/** contract §16: the `delete` operation hides a transaction, keeps its rows and releases its order_no. */
describe('the delete operation', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({ env: { ...FAST_DELIVERY_ENV, PAYMENT_RECONCILE_SECONDS: '3600' } });
    s = await seedBasics(t);
    const gateways = t.app.get(GatewaysService);
    await gateways.create(
      gatewayInput({ code: 'sandbox-auth', name: 'Sandbox auth', operation: 'authorize' }),
    );
    await gateways.create(gatewayInput({ code: 'other', name: 'Other sandbox' }));
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  const remove = (ref: object, auth = s.apiKey) =>
    t
      .http()
      .post('/b/pbl/v2/operation/')
      .set('Authorization', auth)
      .send({ operation: 'delete', ...ref });

  it('cancels a payable one first, then every merchant route and page answers 404; admins still see it', async () => {
    const tx = await d.create({ order_no: 'DEL-1', webhook_url: hook.url, generate_qr_code: true });
    const id = String(tx.session_id);
    const res = await remove({ session_id: id }).expect(200);
    assert.deepEqual(res.body, {
      detail: 'The transaction has been deleted.',
      operation: 'delete',
      result: 'success',
      session_id: id,
      order_no: 'DEL-1',
      amount: '86.000',
      state: 'canceled',
    });
    const canceled = await eventually(
      () =>
        Promise.resolve(hook.received.find((r) => r.json.session_id === id && r.json.event === 'canceled')),
      10_000,
      'the canceled webhook',
    );
    assert.equal(canceled.json.operation, 'delete');
    assert.equal(canceled.json.state, 'canceled');

    const http = t.http();
    await http.get(`${CREATE_PATH}${id}/`).expect(404);
    await http.patch(`${CREATE_PATH}${id}/`).set('Authorization', s.apiKey).send({ amount: '5' }).expect(404);
    await http.put(`${CREATE_PATH}${id}/`).set('Authorization', s.apiKey).send(transactionBody()).expect(404);
    await http.get(`/b/checkout/txn/${id}`).expect(404);
    await http
      .get(new URL(String(tx.checkout_url)).pathname + new URL(String(tx.checkout_url)).search)
      .expect(404);
    const method = new URL((tx.payment_methods as { redirect_url: string }[])[0].redirect_url);
    await http.get(method.pathname + method.search).expect(404);
    await http.get(new URL(String(tx.qr_code_url)).pathname).expect(404);
    await http
      .post(testPayPath(id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success })
      .expect(404);
    const op = await d.operate({ operation: 'cancel', session_id: id });
    assert.equal(op.status, 404);
    assert.equal(op.body.result, 'failed');
    await http.post('/b/pbl/v2/inquiry/').set('Authorization', s.apiKey).send({ session_id: id }).expect(404);
    await remove({ session_id: id }).expect(404);
    await remove({ order_no: 'DEL-1' }).expect(404);

    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'canceled'],
    );
    const [row] = await dataSourceOf(t).query<
      { state: string; deleted_at: unknown; live_order_no: unknown }[]
    >('SELECT state, deleted_at, live_order_no FROM transactions WHERE session_id = ?', [id]);
    assert.equal(row.state, 'canceled');
    assert.notEqual(row.deleted_at, null);
    assert.equal(row.live_order_no, null);
  });

  it('releases the order_no: a new transaction may take it, and order_no then names the new one', async () => {
    const paid = await d.inState('paid', { order_no: 'DEL-2' });
    const res = await remove({ order_no: 'DEL-2' }).expect(200);
    assert.equal(res.body.state, 'paid', 'a paid one keeps its state');
    assert.deepEqual(
      (await adminEvents(t, paid)).map((e) => e.event),
      ['created', 'paid'],
      'hiding a transaction that is not payable emits nothing',
    );
    const again = await d.create({ order_no: 'DEL-2' });
    assert.notEqual(again.session_id, paid);
    const op = await d.operate({ operation: 'cancel', order_no: 'DEL-2' });
    assert.equal(op.status, 200);
    assert.equal(op.body.session_id, again.session_id);
  });

  it('refuses an authorization (void or capture it first) and a transaction an attempt holds', async () => {
    const authorized = await d.inState('authorized');
    const res = await remove({ session_id: authorized }).expect(400);
    assert.deepEqual(res.body, {
      detail: 'Cannot delete an authorized transaction: void or capture it first.',
      operation: 'delete',
      result: 'failed',
    });
    assert.equal((await d.get(authorized)).state, 'authorized');

    const held = String((await d.create()).session_id);
    await leaveCrashedAttempt(dataSourceOf(t), held, { gatewaySaw: null, stored: null, ageSeconds: 0 });
    await remove({ session_id: held }).expect(409);
    assert.equal((await d.get(held)).state, 'created');
  });

  it('hides voided, refunded, canceled and expired ones as they are; a failed one is canceled first', async () => {
    for (const state of ['voided', 'refunded', 'canceled', 'expired'] as const) {
      const id = await d.inState(state);
      const res = await remove({ session_id: id }).expect(200);
      assert.equal(res.body.state, state);
      await t.http().get(`${CREATE_PATH}${id}/`).expect(404);
    }
    const failed = await d.inState('failed');
    assert.equal((await remove({ session_id: failed }).expect(200)).body.state, 'canceled');
  });

  it('a Basic user may delete only on its gateways; two deletes at once: one wins, the other 404s', async () => {
    const other = String((await d.create({ pg_codes: ['other'] })).session_id);
    const denied = await remove({ session_id: other }, s.merchant).expect(404);
    assert.deepEqual(denied.body, { detail: 'Not found.', operation: 'delete', result: 'failed' });
    await t.http().get(`${CREATE_PATH}${other}/`).expect(200);

    const id = String(
      (await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody()).expect(201))
        .body.session_id,
    );
    const answers = await Promise.all([remove({ session_id: id }), remove({ session_id: id }, s.merchant)]);
    const statuses = answers.map((a) => a.status).sort();
    assert.ok(
      JSON.stringify(statuses) === '[200,404]' || JSON.stringify(statuses) === '[200,409]',
      `statuses ${JSON.stringify(statuses)}`,
    );
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'canceled'],
    );
  });
});
