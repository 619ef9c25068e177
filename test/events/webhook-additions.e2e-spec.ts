import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { payloadSignature } from '../../src/events/webhooks/signature';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { TEST_CARDS } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { transactionBody } from '../factories/transaction.factory';
import { CREATE_PATH, testPayPath, TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import { eventually, FAST_DELIVERY_ENV, SIGNING_KEY } from './event-helpers';

/** The keys contract §6 signs: the §16 additions must not change the signature. */
const SIGNED_KEYS = [
  'amount',
  'currency_code',
  'customer_address_city',
  'customer_address_country',
  'customer_address_line1',
  'customer_address_line2',
  'customer_address_postal_code',
  'customer_address_state',
  'customer_email',
  'customer_first_name',
  'customer_last_name',
  'customer_phone',
  'gateway_account',
  'gateway_name',
  'order_no',
  'reference_number',
  'result',
  'state',
];

type Json = Record<string, unknown>;

/** contract §16: the fields the webhook payload gained, on every kind of event. */
describe('webhook payload additions (contract §16)', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({ env: FAST_DELIVERY_ENV });
    s = await seedBasics(t);
    const gateways = t.app.get(GatewaysService);
    await gateways.create(
      gatewayInput({ code: 'sandbox-auth', name: 'Sandbox auth', operation: 'authorize' }),
    );
    await gateways.create(
      gatewayInput({ code: 'sandbox-fee', name: 'Sandbox with fee', feeFixed: '0.250', feePercent: '2' }),
    );
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  /** The webhook of `event` for a transaction, once it has arrived. */
  const webhookOf = (sessionId: string, event: string): Promise<Json> =>
    eventually(
      () =>
        Promise.resolve(
          hook.received.find((r) => r.json.session_id === sessionId && r.json.event === event)?.json,
        ),
      10_000,
      `the ${event} webhook`,
    );

  it('created: payment_type, amount_details with fee and total, nothing settled, empty attempt fields, token null', async () => {
    const tx = await d.create({ webhook_url: hook.url, pg_codes: ['sandbox-fee'], amount: '10.000' });
    const json = await webhookOf(String(tx.session_id), 'created');
    assert.equal(json.payment_type, 'one_off');
    // fee = 0.250 + 2 % of 10.000 = 0.450
    assert.deepEqual(json.amount_details, {
      amount: '10.000',
      currency_code: 'KWD',
      fee: '0.450',
      total: '10.450',
    });
    assert.equal(json.fee, '0.450');
    assert.equal(json.settled_amount, '0.000');
    assert.equal(json.remaining_amount, '10.000');
    assert.equal(json.voided_amount, '0.000');
    assert.equal(json.message, '');
    assert.deepEqual(json.gateway_response, {});
    assert.deepEqual(json.pg_params, {});
    assert.ok('token' in json);
    assert.equal(json.token, null);
    assert.equal('initiator' in json, false, 'created with an API key: no initiator');
  });

  it('paid: the attempt message and gateway answer without card data, settled in full; signature over the §6 keys only', async () => {
    const tx = await d.create({ webhook_url: hook.url });
    const id = String(tx.session_id);
    await d.pay(id, TEST_CARDS.success);
    const json = await webhookOf(id, 'paid');
    assert.equal(json.message, 'Approved');
    const response = json.gateway_response as Json;
    assert.deepEqual(response, {
      pg_code: 'sandbox',
      reference_number: json.reference_number,
      result: 'success',
      response_code: '00',
      message: 'Approved',
    });
    assert.doesNotMatch(JSON.stringify(json), /4111111111111111|1111 1111/);
    assert.equal(json.settled_amount, '86.000');
    assert.equal(json.remaining_amount, '0.000');
    assert.equal(json.token, null, 'a one-off payment saves no card');
    const signedOnly = Object.fromEntries(SIGNED_KEYS.filter((k) => k in json).map((k) => [k, json[k]]));
    assert.equal(json.signature, payloadSignature(signedOnly, SIGNING_KEY));
  });

  it('failed: the decline is described', async () => {
    const tx = await d.create({ webhook_url: hook.url });
    const id = String(tx.session_id);
    await d.pay(id, TEST_CARDS.declined);
    const json = await webhookOf(id, 'failed');
    assert.equal(json.result, 'failed');
    assert.equal(json.message, 'Do not honour');
    assert.equal((json.gateway_response as Json).response_code, '05');
    assert.equal(json.settled_amount, '0.000');
    assert.equal(json.remaining_amount, '86.000');
  });

  it('authorize, capture part, then the authorization of a second one voided: settled and voided amounts', async () => {
    const tx = await d.create({ webhook_url: hook.url, pg_codes: ['sandbox-auth'] });
    const id = String(tx.session_id);
    await d.pay(id, TEST_CARDS.success);
    const authorized = await webhookOf(id, 'authorized');
    assert.equal(
      authorized.settled_amount,
      '0.000',
      'an authorization holds the money, it does not settle it',
    );
    assert.equal((await d.operate({ operation: 'capture', session_id: id, amount: '60' })).status, 200);
    const captured = await webhookOf(id, 'captured');
    assert.equal(captured.settled_amount, '60.000');
    assert.equal(captured.remaining_amount, '26.000');
    assert.equal(captured.message, '', 'an operation is not an attempt');
    assert.deepEqual(captured.gateway_response, {});

    const other = String((await d.create({ webhook_url: hook.url, pg_codes: ['sandbox-auth'] })).session_id);
    await d.pay(other, TEST_CARDS.success);
    assert.equal((await d.operate({ operation: 'void', session_id: other })).status, 200);
    const voided = await webhookOf(other, 'voided');
    assert.equal(voided.voided_amount, '86.000');
    assert.equal(voided.settled_amount, '0.000');
  });

  it('a card saved by the payment is its token; initiator names the Basic user who created it', async () => {
    const res = await t
      .http()
      .post(CREATE_PATH)
      .set('Authorization', s.merchant)
      .send(transactionBody({ webhook_url: hook.url, customer_id: 'cust-hooks', payment_type: 'save_card' }));
    assert.equal(res.status, 201);
    const id = String(res.body.session_id);
    const created = await webhookOf(id, 'created');
    assert.deepEqual(created.initiator, { id: s.merchantId, username: 'merchant' });
    assert.equal(created.payment_type, 'save_card');
    await t
      .http()
      .post(testPayPath(id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success })
      .expect(200);
    const paid = await webhookOf(id, 'paid');
    const token = paid.token as Json;
    assert.equal(token.customer_id, 'cust-hooks');
    assert.equal(token.number, '**** 1111');
    assert.match(String(token.token), /^[A-Za-z0-9_-]{32,}$/);
    assert.deepEqual(paid.initiator, { id: s.merchantId, username: 'merchant' });
  });
});
