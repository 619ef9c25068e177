import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { transactionBody } from '../factories/transaction.factory';
import { TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const CREATE = '/b/checkout/v1/pymt-txn/';
const pay = (sessionId: string) => `/b/checkout/v1/test-helpers/pymt-txn/${sessionId}/pay/`;
const SUCCESS = '4111 1111 1111 1111';
const DECLINED = '4000 0000 0000 0002';
const ERROR = '4000 0000 0000 0119';

describe('test helper: pay a sandbox transaction with a test card', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    const gateways = t.app.get(GatewaysService);
    await gateways.create(
      gatewayInput({ code: 'sandbox-auth', name: 'Sandbox authorize', operation: 'authorize' }),
    );
    await gateways.create(
      gatewayInput({ code: 'live-card', name: 'Live card', type: 'production', pg: 'knet' }),
    );
  });
  after(() => t.close());

  async function create(overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await t
      .http()
      .post(CREATE)
      .set('Authorization', s.apiKey)
      .send(transactionBody(overrides))
      .expect(201);
    return String(res.body.session_id);
  }

  it('pays with the success card and answers the transaction as paid', async () => {
    const id = await create();
    const res = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS })
      .expect(200);
    assert.equal(res.body.session_id, id);
    assert.equal(res.body.state, 'paid');
    assert.equal(res.body.paid_amount, '86.000');
    assert.equal(res.headers.etag, '"2"');
    const again = await t.http().get(`${CREATE}${id}/`).expect(200);
    assert.equal(again.body.state, 'paid');
  });

  it('accepts the card without spaces, and without a trailing slash', async () => {
    const id = await create();
    const res = await t
      .http()
      .post(pay(id).replace(/\/$/, ''))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS.replace(/ /g, '') })
      .expect(200);
    assert.equal(res.body.state, 'paid');
  });

  it('fails with the decline card, and the customer may retry until paid', async () => {
    const id = await create();
    const declined = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: DECLINED })
      .expect(200);
    assert.equal(declined.body.state, 'failed');
    assert.equal(declined.body.paid_amount, '0.000');
    const paid = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS })
      .expect(200);
    assert.equal(paid.body.state, 'paid');
  });

  it('ends in error with the error card, which is still payable', async () => {
    const id = await create();
    const errored = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: ERROR })
      .expect(200);
    assert.equal(errored.body.state, 'error');
    const declined = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: DECLINED })
      .expect(200);
    assert.equal(declined.body.state, 'failed');
  });

  it('declines a well-formed card number that is not a test card', async () => {
    const id = await create();
    const res = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: '5555 5555 5555 4444' })
      .expect(200);
    assert.equal(res.body.state, 'failed');
  });

  it('authorizes through a gateway whose operation is authorize', async () => {
    const id = await create({ pg_codes: ['sandbox-auth'] });
    const res = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS })
      .expect(200);
    assert.equal(res.body.state, 'authorized');
    assert.equal(res.body.operation, 'authorize');
  });

  describe('every attempt outcome from every payable state', () => {
    const outcomes = [
      { card: SUCCESS, gateway: 'sandbox', to: 'paid' },
      { card: SUCCESS, gateway: 'sandbox-auth', to: 'authorized' },
      { card: DECLINED, gateway: 'sandbox', to: 'failed' },
      { card: ERROR, gateway: 'sandbox', to: 'error' },
    ] as const;
    for (const from of ['created', 'failed', 'error'] as const) {
      for (const o of outcomes) {
        it(`moves ${from} to ${o.to} (${o.gateway}, ${o.card})`, async () => {
          const d = new TransactionDriver(t, s.apiKey);
          const id = await d.inState(from, { pg_codes: [o.gateway] });
          const res = await t
            .http()
            .post(pay(id))
            .set('Authorization', s.apiKey)
            .send({ card: o.card })
            .expect(200);
          assert.equal(res.body.state, o.to);
        });
      }
    }
    for (const from of [
      'paid',
      'authorized',
      'captured',
      'canceled',
      'expired',
      'voided',
      'refunded',
    ] as const) {
      it(`refuses an attempt on a ${from} transaction with 409`, async () => {
        const d = new TransactionDriver(t, s.apiKey);
        const id = await d.inState(from);
        const res = await t
          .http()
          .post(pay(id))
          .set('Authorization', s.apiKey)
          .send({ card: SUCCESS })
          .expect(409);
        assert.deepEqual(res.body, { detail: `A transaction in state "${from}" can no longer be paid.` });
        assert.equal((await d.get(id)).state, from);
      });
    }
  });

  it('refuses a transaction that is no longer payable with 409', async () => {
    const id = await create();
    await t.http().post(pay(id)).set('Authorization', s.apiKey).send({ card: SUCCESS }).expect(200);
    const res = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS })
      .expect(409);
    assert.deepEqual(res.body, { detail: 'A transaction in state "paid" can no longer be paid.' });
  });

  it('refuses a production gateway with 403', async () => {
    const id = await create({ pg_codes: ['live-card'] });
    const res = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS })
      .expect(403);
    assert.deepEqual(res.body, { detail: 'Test helpers only work with gateways of type "sandbox".' });
    const after = await t.http().get(`${CREATE}${id}/`).expect(200);
    assert.equal(after.body.state, 'created');
  });

  it('takes an API key only', async () => {
    const id = await create();
    await t.http().post(pay(id)).send({ card: SUCCESS }).expect(401);
    await t.http().post(pay(id)).set('Authorization', s.merchant).send({ card: SUCCESS }).expect(401);
  });

  it('rejects a missing or malformed card with 400 and changes nothing', async () => {
    const id = await create();
    const missing = await t.http().post(pay(id)).set('Authorization', s.apiKey).send({}).expect(400);
    assert.deepEqual(missing.body, { card: ['This field is required.'] });
    const short = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: '4111 1111 111' })
      .expect(400);
    assert.deepEqual(short.body, { card: ['Enter a valid card number.'] });
    const letters = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: '4111-1111-1111-111x' })
      .expect(400);
    assert.deepEqual(letters.body, { card: ['Enter a valid card number.'] });
    const notLuhn = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: '4111 1111 1111 1112' })
      .expect(400);
    assert.deepEqual(notLuhn.body, { card: ['Enter a valid card number.'] });
    // 12 Luhn-valid digits is the shortest accepted number (declined: not a test card).
    const shortest = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: '4111 1111 1117' })
      .expect(200);
    assert.equal(shortest.body.state, 'failed');
  });

  it('answers 404 for an unknown session', async () => {
    await t
      .http()
      .post(pay('f'.repeat(40)))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS })
      .expect(404);
  });

  it('expires a payable transaction past its deadline instead of paying it, releasing its order_no', async () => {
    const id = await create({ expiration_time: '00:00:01', order_no: 'late-1' });
    await sleep(1100);
    const res = await t
      .http()
      .post(pay(id))
      .set('Authorization', s.apiKey)
      .send({ card: SUCCESS })
      .expect(409);
    assert.deepEqual(res.body, { detail: 'A transaction in state "expired" can no longer be paid.' });
    const after = await t.http().get(`${CREATE}${id}/`).expect(200);
    assert.equal(after.body.state, 'expired');
    assert.equal(after.body.paid_amount, '0.000');
    await create({ order_no: 'late-1' });
  });

  it('lets exactly one of several concurrent attempts pay', async () => {
    const id = await create();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.http().post(pay(id)).set('Authorization', s.apiKey).send({ card: SUCCESS }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409]);
    const attempts = await t.app
      .get(DataSource)
      .query(
        'SELECT result FROM payment_attempts WHERE transaction_id = (SELECT id FROM transactions WHERE session_id = ?)',
        [id],
      );
    assert.deepEqual(
      (attempts as { result: string }[]).map((a) => a.result),
      ['success'],
    );
  });

  it('records each attempt with its reference number and never the card number', async () => {
    const id = await create();
    await t.http().post(pay(id)).set('Authorization', s.apiKey).send({ card: DECLINED }).expect(200);
    await t.http().post(pay(id)).set('Authorization', s.apiKey).send({ card: SUCCESS }).expect(200);
    const rows = await t.app
      .get(DataSource)
      .query<Record<string, unknown>[]>(
        'SELECT * FROM payment_attempts WHERE transaction_id = (SELECT id FROM transactions WHERE session_id = ?) ORDER BY id',
        [id],
      );
    assert.deepEqual(
      rows.map((r) => [r.result, r.response_code, r.pg_code, r.completed_at !== null, r.settled_at !== null]),
      [
        ['declined', '05', 'sandbox', true, true],
        ['success', '00', 'sandbox', true, true],
      ],
    );
    for (const row of rows) assert.match(String(row.reference_number), /^[0-9A-F]{19}$/);
    const dump = JSON.stringify(rows);
    assert.ok(!dump.includes('4111111111111111') && !dump.includes('4000000000000002'));
    assert.deepEqual(Object.keys(rows[0]).sort(), [
      'amount',
      'card',
      'completed_at',
      'created_at',
      'currency_code',
      'gateway_token',
      'id',
      'left_at',
      'pg_code',
      'provider_data',
      'reconciliation',
      'reference_number',
      'response_code',
      'result',
      'settled_at',
      'transaction_id',
    ]);
  });
});
