import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dataSourceOf } from '../events/event-helpers';
import { leaveCrashedAttempt } from '../factories/crashed-attempts';
import { TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { cardForm, openPaymentPage } from './page-helpers';

const MERCHANT = 'https://shop.example/return';

/**
 * contract §17: a second payment attempt never reaches the gateway, and the customer who sent it sees
 * the transaction's real state rather than the form again.
 */
describe('the payment page of an attempt that lost the race', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  before(async () => {
    t = await startApp({
      env: { PAYMENT_RECONCILE_SECONDS: '3600', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '3600' },
    });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
  });
  after(() => t.close());

  const methodUrl = (tx: Record<string, unknown>) =>
    (tx.payment_methods as { redirect_url: string }[])[0].redirect_url;

  it('sends the customer on as paid when the other attempt paid it, with that attempt’s reference', async () => {
    const tx = await d.create({ redirect_url: MERCHANT, order_no: 'race-1' });
    const id = String(tx.session_id);
    const form = await openPaymentPage(t, methodUrl(tx)); // two tabs: this one opened first
    const winner = await d.pay(id, TEST_CARDS.success); // the other tab paid
    assert.equal(winner.state, 'paid');

    const res = await t
      .http()
      .post(form.path)
      .set('Cookie', form.cookie)
      .type('form')
      .send({ csrf_token: form.token, ...cardForm(TEST_CARDS.success) })
      .expect(303);
    const landing = new URL(String(res.headers.location));
    assert.equal(landing.origin + landing.pathname, MERCHANT);
    assert.equal(landing.searchParams.get('state'), 'paid');
    const [attempt] = await dataSourceOf(t).query<{ reference_number: string }[]>(
      `SELECT reference_number FROM payment_attempts
       WHERE transaction_id = (SELECT id FROM transactions WHERE session_id = ?)`,
      [id],
    );
    assert.equal(landing.searchParams.get('reference_number'), attempt.reference_number);
    assert.equal((await d.get(id)).paid_amount, '86.000', 'charged once');
  });

  it('tells the customer a payment is being processed while another attempt holds the transaction', async () => {
    const tx = await d.create({ redirect_url: MERCHANT });
    const id = String(tx.session_id);
    const form = await openPaymentPage(t, methodUrl(tx));
    await leaveCrashedAttempt(dataSourceOf(t), id, { gatewaySaw: null, stored: null, ageSeconds: 0 });

    const res = await t
      .http()
      .post(form.path)
      .set('Cookie', form.cookie)
      .type('form')
      .send({ csrf_token: form.token, ...cardForm(TEST_CARDS.success) })
      .expect(409);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(
      res.text.includes('A payment for this transaction is already being processed.'),
      'the page says why nothing was charged',
    );
    assert.equal((await d.get(id)).state, 'created');
  });
});
