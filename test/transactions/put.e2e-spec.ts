import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, forceState, storedRow, txnPath } from './helpers';

/** contract §16: PUT replaces the whole input; otherwise it is PATCH (rules, 409, ETag). */
describe('PUT: full update', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const put = (sessionId: string, body: object, headers: Record<string, string> = {}) =>
    t.http().put(txnPath(sessionId)).set('Authorization', s.apiKey).set(headers).send(body);
  let orders = 0;
  const full = () =>
    createTransaction(t, s, {
      vendor_name: 'Old shop',
      customer_email: 'old@example.com',
      customer_id: 'cust-1',
      order_no: `put-order-${++orders}`,
      notifications: { email: ['paid'] },
      expiration_time: '02:00:00',
      extra: { a: 1 },
      payment_type: 'save_card',
    });

  it('resets every optional field left out, and sets what is sent', async () => {
    const tx = await full();
    const res = await put(tx.session_id, transactionBody({ amount: '20', vendor_name: 'New shop' })).expect(
      200,
    );
    assert.equal(res.body.amount, '20.000');
    assert.equal(res.body.vendor_name, 'New shop');
    assert.equal(res.body.customer_email, '');
    assert.equal(res.body.customer_id, '');
    assert.equal(res.body.order_no, null);
    assert.deepEqual(res.body.notifications, {});
    assert.deepEqual(res.body.extra, {});
    assert.equal(res.body.expiration_time, '01:00:00');
    assert.equal(res.body.payment_type, 'one_off');
    assert.ok(res.headers.etag);
    // The order_no is free again.
    await createTransaction(t, s, { order_no: 'put-order-1' });
  });

  it("needs create's required fields and writes nothing without them", async () => {
    const tx = await full();
    const res = await put(tx.session_id, { vendor_name: 'x' }).expect(400);
    assert.deepEqual(res.body, {
      type: ['This field is required.'],
      amount: ['This field is required.'],
      currency_code: ['This field is required.'],
      pg_codes: ['This field is required.'],
    });
    const row = await storedRow(t, tx.session_id);
    assert.equal(row.vendorName, 'Old shop');
    assert.equal(row.customerEmail, 'old@example.com');
  });

  it('re-checks every rule on the new input, as create does', async () => {
    const tx = await full();
    const res = await put(tx.session_id, transactionBody({ notifications: { email: ['paid'] } })).expect(400);
    assert.deepEqual(res.body, {
      customer_email: ['This field is required when notifications.email is set.'],
    });
  });

  it('answers 412 for a stale If-Match, 409 once not payable, 404 for an unknown session', async () => {
    const tx = await full();
    await put(tx.session_id, transactionBody(), { 'If-Match': '"0"' }).expect(412);
    await forceState(t, tx.session_id, 'paid');
    const paid = await put(tx.session_id, transactionBody()).expect(409);
    assert.deepEqual(paid.body, { detail: 'A transaction in state "paid" can no longer be updated.' });
    await put('f'.repeat(40), transactionBody()).expect(404);
  });
});
