import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { transactionBody } from '../factories/transaction.factory';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TXN_PATH, txnPath } from './helpers';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** contract §4 "Response representation" and retrieve. */
describe('transaction representation and retrieve', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    const gateways = t.app.get(GatewaysService);
    await gateways.create(
      gatewayInput({
        code: 'knet-live',
        name: 'KNET',
        pg: 'knet',
        type: 'production',
        operation: 'authorize',
        feeFixed: '0.100',
        feePercent: '2.5',
        icon: 'https://cdn.example.com/knet.svg',
      }),
    );
    await gateways.create(gatewayInput({ code: 'half', name: 'Half', feeFixed: '0', feePercent: '0.5' }));
    await gateways.create(gatewayInput({ code: 'jpy-fee', name: 'Yen', feeFixed: '0', feePercent: '3.5' }));
  });
  after(() => t.close());

  it('returns every field with its default for a minimal create', async () => {
    const before = Date.now();
    const res = await t
      .http()
      .post(TXN_PATH)
      .set('Authorization', s.apiKey)
      .send(transactionBody())
      .expect(201);
    const body = res.body as Record<string, string>;
    const id = body.session_id;
    assert.match(id, /^[0-9a-f]{40}$/);
    for (const key of ['created_at', 'updated_at', 'expires_at']) assert.match(body[key], ISO_UTC, key);
    const createdAt = Date.parse(body.created_at);
    assert.ok(createdAt >= before - 5 && createdAt <= Date.now() + 5, 'created_at is the creation time');
    assert.equal(body.updated_at, body.created_at);
    assert.equal(Date.parse(body.expires_at), createdAt + 3600_000);
    assert.deepEqual(body, {
      session_id: id,
      state: 'created',
      type: 'e_commerce',
      operation: 'purchase',
      amount: '86.000',
      currency_code: 'KWD',
      pg_codes: ['sandbox'],
      payment_methods: [
        {
          code: 'sandbox',
          name: 'Sandbox card',
          pg: 'sandbox',
          type: 'sandbox',
          is_sandbox: true,
          amount: '86.000',
          currency_code: 'KWD',
          fee: '0.000',
          icon: `${t.url}/b/checkout/static/icons/sandbox.svg`,
          flow: 'redirect',
          redirect_url: `${t.url}/b/checkout/pay/sandbox/?session_id=${id}`,
        },
      ],
      checkout_url: `${t.url}/b/checkout/redirect/start/?session_id=${id}`,
      checkout_page_url: `${t.url}/b/checkout/txn/${id}`,
      qr_code_url: '',
      checkout_short_url: '',
      attachment: null,
      attachment_short_url: '',
      mode: 'payment',
      webhook_url: '',
      redirect_url: '',
      customer_id: '',
      customer_first_name: '',
      customer_last_name: '',
      customer_email: '',
      customer_phone: '',
      customer_address_city: '',
      billing_address: null,
      order_no: null,
      notifications: {},
      vendor_name: '',
      expiration_time: '01:00:00',
      email_recipients: [],
      extra: {},
      product_type: '',
      language: 'en',
      payment_type: 'one_off',
      settled_pg_code: '',
      gateway_code: '',
      routing: [],
      agreement: null,
      shortify_attachment_url: false,
      shortify_checkout_url: false,
      initiator_id: null,
      remarks: null,
      paid_amount: '0.000',
      captured_amount: '0.000',
      refunded_amount: '0.000',
      voided_amount: '0.000',
      created_at: body.created_at,
      updated_at: body.updated_at,
      expires_at: body.expires_at,
    });
    assert.equal(res.headers.etag, '"1"');
  });

  it('echoes every request field', async () => {
    const sent = {
      type: 'payment_request',
      amount: '12.5',
      currency_code: 'kwd',
      pg_codes: ['sandbox'],
      mode: 'invoice',
      webhook_url: 'https://merchant.example.com/hook',
      redirect_url: 'https://merchant.example.com/done',
      customer_id: 'cust-1',
      customer_first_name: 'Layla',
      customer_last_name: 'Hassan',
      customer_email: 'layla@example.com',
      customer_phone: '+96550000000',
      billing_address: {
        line1: 'Block 1',
        line2: 'Flat 4',
        city: 'Salmiya',
        state: 'Hawalli',
        country: 'KW',
        postal_code: '22001',
      },
      order_no: 'INV-1001',
      notifications: { email: ['created', 'paid'], sms: ['paid'] },
      vendor_name: 'Shop',
      expiration_time: '2 00:00:00',
      email_recipients: ['ops@example.com'],
      extra: { cart: ['a', 'b'], n: 2 },
      product_type: 'books',
      language: 'ar',
      shortify_checkout_url: false,
    };
    const body = await createTransaction(t, s, sent);
    for (const [key, value] of Object.entries(sent)) {
      if (['amount', 'currency_code'].includes(key)) continue;
      assert.deepEqual(body[key], value, key);
    }
    assert.equal(body.amount, '12.500');
    assert.equal(body.currency_code, 'KWD');
    assert.equal(body.customer_address_city, 'Salmiya');
    assert.equal(Date.parse(body.expires_at) - Date.parse(body.created_at), 2 * 86400_000);
  });

  it('formats amounts with the currency digits', async () => {
    assert.equal((await createTransaction(t, s, { amount: '12.5', currency_code: 'KWD' })).amount, '12.500');
    assert.equal((await createTransaction(t, s, { amount: '7', currency_code: 'USD' })).amount, '7.00');
    assert.equal((await createTransaction(t, s, { amount: '1500', currency_code: 'JPY' })).amount, '1500');
    const jpy = await createTransaction(t, s, { amount: '1500', currency_code: 'JPY' });
    assert.equal(jpy.payment_methods[0].amount, '1500');
    assert.equal(jpy.paid_amount, '0');
  });

  describe('payment_methods', () => {
    it('describes the gateway and its fee: fixed + amount × percent / 100', async () => {
      const body = await createTransaction(t, s, { amount: '12.345', pg_codes: ['knet-live'] });
      assert.equal(body.operation, 'authorize');
      assert.deepEqual(body.payment_methods, [
        {
          code: 'knet-live',
          name: 'KNET',
          pg: 'knet',
          type: 'production',
          is_sandbox: false,
          amount: '12.345',
          currency_code: 'KWD',
          fee: '0.409', // 0.100 + 12.345 × 2.5 / 100 = 0.408625
          icon: 'https://cdn.example.com/knet.svg',
          flow: 'redirect',
          redirect_url: `${t.url}/b/checkout/pay/knet-live/?session_id=${body.session_id}`,
        },
      ]);
    });
    it('rounds the fee half-up to the currency digits', async () => {
      // 1.00 × 0.5 / 100 = 0.005 → 0.01 (half-even would give 0.00)
      const usd = await createTransaction(t, s, { amount: '1', currency_code: 'USD', pg_codes: ['half'] });
      assert.equal(usd.payment_methods[0].fee, '0.01');
      // 0.99 × 0.5 / 100 = 0.00495 → 0.00
      const below = await createTransaction(t, s, {
        amount: '0.99',
        currency_code: 'USD',
        pg_codes: ['half'],
      });
      assert.equal(below.payment_methods[0].fee, '0.00');
      // 1500 × 3.5 / 100 = 52.5 → 53 (half-even would give 52)
      const jpy = await createTransaction(t, s, {
        amount: '1500',
        currency_code: 'JPY',
        pg_codes: ['jpy-fee'],
      });
      assert.equal(jpy.payment_methods[0].fee, '53');
    });
  });

  it('gives every transaction its own session_id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await createTransaction(t, s)).session_id as string);
    assert.equal(ids.size, 20);
    for (const id of ids) assert.match(id, /^[0-9a-f]{40}$/);
  });

  it('sets initiator_id to the Basic user, and null for an API key', async () => {
    const res = await t
      .http()
      .post(TXN_PATH)
      .set('Authorization', s.merchant)
      .send(transactionBody())
      .expect(201);
    assert.equal(res.body.initiator_id, s.merchantId);
    assert.equal((await createTransaction(t, s)).initiator_id, null);
  });

  describe('retrieve', () => {
    it('is public and answers the same representation and ETag as create', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .send(transactionBody())
        .expect(201);
      const got = await t.http().get(txnPath(res.body.session_id)).expect(200);
      assert.deepEqual(got.body, res.body);
      assert.equal(got.headers.etag, res.headers.etag);
    });
    it('answers 304 with the ETag and no body while If-None-Match names the current version', async () => {
      const created = await createTransaction(t, s);
      const path = txnPath(created.session_id);
      const first = await t.http().get(path).expect(200);
      const etag = String(first.headers.etag);
      const same = await t.http().get(path).set('If-None-Match', etag).expect(304);
      assert.equal(same.headers.etag, etag);
      assert.equal(same.text, '');
      await t.http().get(path).set('If-None-Match', `W/${etag}, "999"`).expect(304);
      await t.http().get(path).set('If-None-Match', '"999"').expect(200);
      await t.http().get(path).set('If-None-Match', 'garbage').expect(200);
      // Changed since: the new representation, with its new ETag.
      await t
        .http()
        .patch(path)
        .set('Authorization', s.apiKey)
        .send({ customer_first_name: 'Changed' })
        .expect(200);
      const changed = await t.http().get(path).set('If-None-Match', etag).expect(200);
      assert.notEqual(changed.headers.etag, etag);
      assert.equal(changed.body.customer_first_name, 'Changed');
      await t
        .http()
        .get(txnPath('0'.repeat(40)))
        .set('If-None-Match', '*')
        .expect(404);
    });
    it('ignores credentials, even wrong ones', async () => {
      const created = await createTransaction(t, s);
      await t.http().get(txnPath(created.session_id)).set('Authorization', 'Api-Key nope.nope').expect(200);
      await t.http().get(txnPath(created.session_id)).set('Authorization', 'Basic Zm9vOmJhcg==').expect(200);
    });
    it('answers 404 {"detail": "Not found."} for an unknown session', async () => {
      const res = await t
        .http()
        .get(txnPath('0'.repeat(40)))
        .expect(404);
      assert.deepEqual(res.body, { detail: 'Not found.' });
    });
    it('answers 404 for a malformed session id', async () => {
      const created = await createTransaction(t, s);
      for (const id of [
        'abc',
        created.session_id.toUpperCase(),
        `${created.session_id}0`,
        created.session_id.slice(1),
        `${created.session_id.slice(0, 39)}g`,
        "1' OR '1'='1",
        '%00',
      ]) {
        const res = await t.http().get(`${TXN_PATH}${encodeURIComponent(id)}/`);
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { detail: 'Not found.' }, id);
      }
    });
  });
});
