import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, postTransaction, TXN_PATH } from './helpers';

/**
 * contract §4 request fields over HTTP: one round trip per status family of the route (the 201,
 * the 400 field-error body), and what only the HTTP layer does (a JSON number read as its text,
 * read-only and unknown keys, null and "" for optional fields). Each rule's variants (every limit,
 * every error of a field) run at the service tier: test/services/transaction-fields.service-spec.ts.
 */
describe('create: request field rules', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  describe('amount', () => {
    it('reads a JSON number as its decimal text, digits and all', async () => {
      const send = (json: string) =>
        t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send(json);
      const ok = await send(
        '{"type":"e_commerce","amount":12.50,"currency_code":"USD","pg_codes":["sandbox"]}',
      );
      assert.equal(ok.status, 201);
      assert.equal(ok.body.amount, '12.50');
      const tooPrecise = await send(
        '{"type":"e_commerce","amount":0.1000000000000000055511151231257827,"currency_code":"KWD","pg_codes":["sandbox"]}',
      );
      assert.equal(tooPrecise.status, 400);
      assert.deepEqual(Object.keys(tooPrecise.body as object), ['amount']);
      const exponent = await send(
        '{"type":"e_commerce","amount":1e3,"currency_code":"KWD","pg_codes":["sandbox"]}',
      );
      assert.deepEqual(exponent.body, { amount: ['A valid number is required.'] });
    });
  });

  it('reports every missing required field at once', async () => {
    const res = await postTransaction(t, s, {});
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      type: ['This field is required.'],
      amount: ['This field is required.'],
      currency_code: ['This field is required.'],
      pg_codes: ['This field is required.'],
    });
  });

  it('ignores unknown fields and read-only fields', async () => {
    const body = await createTransaction(t, s, {
      session_id: 'f'.repeat(40),
      state: 'paid',
      checkout_url: 'https://evil.example/checkout',
      payment_methods: [{ code: 'x', fee: '0' }],
      operation: 'authorize',
      initiator_id: 99,
      created_at: '2000-01-01T00:00:00Z',
      paid_amount: '86.000',
      surprise: { nested: true },
    });
    assert.notEqual(body.session_id, 'f'.repeat(40));
    assert.equal(body.state, 'created');
    assert.equal(body.operation, 'purchase');
    assert.equal(body.initiator_id, null);
    assert.equal(body.paid_amount, '0.000');
    assert.equal(body.checkout_url, `${t.url}/b/checkout/redirect/start/?session_id=${body.session_id}`);
    assert.equal(body.payment_methods[0].code, 'sandbox');
    assert.notEqual(body.created_at, '2000-01-01T00:00:00.000Z');
    assert.equal('surprise' in body, false);
  });

  it('treats an explicit null for an optional field as not set', async () => {
    const body = await createTransaction(t, s, {
      mode: null,
      webhook_url: null,
      redirect_url: null,
      customer_id: null,
      customer_first_name: null,
      customer_last_name: null,
      customer_email: null,
      customer_phone: null,
      billing_address: null,
      order_no: null,
      notifications: null,
      vendor_name: null,
      expiration_time: null,
      email_recipients: null,
      extra: null,
      product_type: null,
      language: null,
      shortify_attachment_url: null,
      shortify_checkout_url: null,
      attachment: null,
    });
    assert.equal(body.mode, 'payment');
    assert.equal(body.webhook_url, '');
    assert.equal(body.customer_email, '');
    assert.equal(body.billing_address, null);
    assert.equal(body.order_no, null);
    assert.deepEqual(body.notifications, {});
    assert.equal(body.expiration_time, '01:00:00');
    assert.deepEqual(body.email_recipients, []);
    assert.deepEqual(body.extra, {});
    assert.equal(body.language, 'en');
    assert.equal(body.shortify_checkout_url, false);
  });

  it('treats an empty string for an optional field as not set (unset fields are echoed as "")', async () => {
    const body = await createTransaction(t, s, {
      webhook_url: '',
      redirect_url: '',
      customer_email: '',
      customer_phone: '',
      order_no: '',
      language: '',
      mode: '',
    });
    assert.equal(body.webhook_url, '');
    assert.equal(body.customer_email, '');
    assert.equal(body.order_no, null);
    assert.equal(body.expiration_time, '01:00:00');
    assert.equal(body.language, 'en');
    assert.equal(body.mode, 'payment');
  });

  it('reports every violation of one request together', async () => {
    const res = await postTransaction(
      t,
      s,
      transactionBody({
        type: 'shop',
        amount: '-1',
        currency_code: 'XYZ',
        mode: 'm'.repeat(33),
        webhook_url: 'ftp://x',
        customer_email: 'nope',
        billing_address: { country: 'XX' },
        expiration_time: '31 00:00:00',
        language: 'zz',
      }),
    );
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body as object).sort(), [
      'amount',
      'billing_address',
      'currency_code',
      'customer_email',
      'expiration_time',
      'language',
      'mode',
      'type',
      'webhook_url',
    ]);
  });
});
