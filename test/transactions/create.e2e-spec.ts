import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/pymt-txn/';

describe('create a payment transaction', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  it('answers 201 with the full representation and its defaults', async () => {
    const res = await t
      .http()
      .post(PATH)
      .set('Authorization', s.apiKey)
      .send(transactionBody({ amount: '86.5' }))
      .expect(201);
    const body = res.body as Record<string, unknown>;
    assert.match(String(body.session_id), /^[0-9a-f]{40}$/);
    assert.equal(body.state, 'created');
    assert.equal(body.amount, '86.500');
    assert.equal(body.mode, 'payment');
    assert.equal(body.expiration_time, '01:00:00');
    assert.equal(body.language, 'en');
    assert.equal(body.order_no, null);
    assert.deepEqual(body.extra, {});
    assert.deepEqual(body.email_recipients, []);
    assert.equal(body.billing_address, null);
    assert.equal(body.attachment, null);
    assert.deepEqual(body.notifications, {});
    assert.equal(body.customer_email, '');
    assert.equal(body.initiator_id, null);
    assert.equal(
      body.checkout_url,
      `${t.url}/b/checkout/redirect/start/?session_id=${String(body.session_id)}`,
    );
    assert.equal(res.headers.etag, '"1"');
  });

  it('reads a JSON number amount as its decimal text', async () => {
    const res = await t
      .http()
      .post(PATH)
      .set('Authorization', s.apiKey)
      .set('Content-Type', 'application/json')
      .send('{"type":"e_commerce","amount":9999999999999.999,"currency_code":"KWD","pg_codes":["sandbox"]}')
      .expect(201);
    assert.equal(res.body.amount, '9999999999999.999');
  });

  it('rejects an amount with more decimals than the currency allows, with every other violation', async () => {
    const res = await t
      .http()
      .post(PATH)
      .set('Authorization', s.apiKey)
      .send(transactionBody({ amount: '12.5001', currency_code: 'KWD', language: 'xx' }))
      .expect(400);
    assert.deepEqual(res.body, {
      amount: ['Ensure that there are no more than 3 decimal places for KWD.'],
      language: ['"xx" is not a valid ISO 639-1 language code.'],
    });
  });
});
