import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { IdempotencyService } from '../../src/idempotency/idempotency.service';
import { TRANSACTION_STATES, type TransactionState } from '../../src/transactions/transaction-state';
import { ATTEMPT_HOLDS_IT } from '../../src/transactions/transactions.service';
import { OPERATION_PATH, TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

/** contract §5/§10, by hand: the states each operation may start from. */
const ALLOWED_FROM: Record<string, TransactionState[]> = {
  capture: ['authorized'],
  void: ['authorized'],
  refund: ['paid', 'captured'],
  cancel: ['created', 'failed', 'error'],
  expire: ['created', 'failed', 'error'],
};
const RESULT_STATE: Record<string, TransactionState> = {
  capture: 'captured',
  void: 'voided',
  refund: 'refunded',
  cancel: 'canceled',
  expire: 'expired',
};

describe('operations API', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    const gateways = t.app.get(GatewaysService);
    await gateways.create(
      gatewayInput({ code: 'sandbox-auth', name: 'Sandbox authorize', operation: 'authorize' }),
    );
    await gateways.create(gatewayInput({ code: 'other', name: 'Other sandbox' }));
    d = new TransactionDriver(t, s.apiKey);
  });
  after(() => t.close());

  describe('every operation from every state', () => {
    for (const operation of Object.keys(ALLOWED_FROM)) {
      for (const state of TRANSACTION_STATES) {
        const allowed = ALLOWED_FROM[operation].includes(state);
        it(`${allowed ? 'runs' : 'refuses'} ${operation} on a ${state} transaction`, async () => {
          const id = await d.inState(state);
          const before = await d.get(id);
          const res = await d.operate({ operation, session_id: id });
          if (allowed) {
            assert.equal(res.status, 200, JSON.stringify(res.body));
            assert.equal(res.body.result, 'success');
            assert.equal(res.body.state, RESULT_STATE[operation]);
            assert.equal((await d.get(id)).state, RESULT_STATE[operation]);
          } else {
            assert.equal(res.status, 400);
            assert.deepEqual(res.body, {
              detail: `Cannot ${operation} a transaction in state "${state}".`,
              operation,
              result: 'failed',
            });
            const after = await d.get(id);
            assert.equal(after.state, state);
            assert.equal(after.updated_at, before.updated_at);
          }
        });
      }
    }
  });

  it('captures an authorized transaction in full and answers contract §10 body', async () => {
    const tx = await d.create({ pg_codes: ['sandbox-auth'], order_no: 'cap-1' });
    const id = String(tx.session_id);
    await d.pay(id, TEST_CARDS.success);
    const res = await d.operate({ operation: 'capture', session_id: id });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      detail: 'The transaction has been captured.',
      operation: 'capture',
      result: 'success',
      session_id: id,
      order_no: 'cap-1',
      amount: '86.000',
      state: 'captured',
    });
    const now = await d.get(id);
    assert.equal(now.captured_amount, '86.000');
    assert.equal(now.paid_amount, '0.000');
  });

  it('captures part of an authorization up to the authorized amount, and refunds at most what was captured', async () => {
    const over = await d.inState('authorized');
    const tooMuch = await d.operate({ operation: 'capture', session_id: over, amount: '86.001' });
    assert.equal(tooMuch.status, 400);
    assert.deepEqual(tooMuch.body, {
      detail: 'The amount exceeds the authorized amount (86.000).',
      operation: 'capture',
      result: 'failed',
    });
    const exact = await d.operate({ operation: 'capture', session_id: over, amount: '86' });
    assert.equal(exact.status, 200);
    assert.equal(exact.body.amount, '86.000');

    const id = await d.inState('authorized');
    const partial = await d.operate({ operation: 'capture', session_id: id, amount: '50.5' });
    assert.equal(partial.status, 200);
    assert.equal(partial.body.amount, '50.500');
    assert.equal(partial.body.state, 'captured');
    assert.equal((await d.get(id)).captured_amount, '50.500');
    const refundTooMuch = await d.operate({ operation: 'refund', session_id: id, amount: '50.501' });
    assert.equal(refundTooMuch.status, 400);
    assert.equal(refundTooMuch.body.detail, 'The amount exceeds what is left to refund (50.500).');
    const refundAll = await d.operate({ operation: 'refund', session_id: id });
    assert.equal(refundAll.status, 200);
    assert.equal(refundAll.body.amount, '50.500');
    assert.equal(refundAll.body.state, 'refunded');
  });

  it('voids an authorization and records the voided amount', async () => {
    const id = await d.inState('authorized');
    const res = await d.operate({ operation: 'void', session_id: id });
    assert.equal(res.status, 200);
    assert.equal(res.body.amount, '86.000');
    const now = await d.get(id);
    assert.equal(now.state, 'voided');
    assert.equal(now.voided_amount, '86.000');
  });

  it('keeps the state on a partial refund and moves to refunded when the rest is refunded', async () => {
    const id = await d.inState('paid');
    const first = await d.operate({ operation: 'refund', session_id: id, amount: '10' });
    assert.equal(first.status, 200);
    assert.deepEqual([first.body.amount, first.body.state], ['10.000', 'paid']);
    assert.equal((await d.get(id)).refunded_amount, '10.000');
    const second = await d.operate({ operation: 'refund', session_id: id, amount: '75.999' });
    assert.deepEqual([second.status, second.body.state], [200, 'paid']);
    const overLast = await d.operate({ operation: 'refund', session_id: id, amount: '0.002' });
    assert.equal(overLast.status, 400);
    assert.equal(overLast.body.detail, 'The amount exceeds what is left to refund (0.001).');
    const last = await d.operate({ operation: 'refund', session_id: id, amount: '0.001' });
    assert.deepEqual([last.status, last.body.amount, last.body.state], [200, '0.001', 'refunded']);
    const now = await d.get(id);
    assert.equal(now.refunded_amount, '86.000');
    assert.equal(now.paid_amount, '86.000');
  });

  it('validates the amount: decimal text, above zero, within the currency digits', async () => {
    const id = await d.inState('paid');
    for (const [amount, detail] of [
      ['0', '"amount" must be greater than 0.'],
      ['-1', '"amount" must be greater than 0.'],
      ['ten', '"amount" must be a decimal string.'],
      ['1.0001', 'Ensure that there are no more than 3 decimal places for KWD.'],
    ]) {
      const res = await d.operate({ operation: 'refund', session_id: id, amount });
      assert.equal(res.status, 400, amount);
      assert.deepEqual(res.body, { detail, operation: 'refund', result: 'failed' });
    }
    const json = await t
      .http()
      .post(OPERATION_PATH)
      .set('Authorization', s.apiKey)
      .set('Content-Type', 'application/json')
      .send(`{"operation":"refund","session_id":"${id}","amount":1.5}`)
      .expect(200);
    assert.equal(json.body.amount, '1.500');
    assert.equal((await d.get(id)).refunded_amount, '1.500');
  });

  it('finds the live transaction by order_no, and cancel releases the order_no', async () => {
    const first = String((await d.create({ order_no: 'ord-7' })).session_id);
    const cancel = await d.operate({ operation: 'cancel', order_no: 'ord-7' });
    assert.equal(cancel.status, 200);
    assert.equal(cancel.body.session_id, first);
    const second = String((await d.create({ order_no: 'ord-7' })).session_id);
    await d.pay(second, TEST_CARDS.success);
    const refund = await d.operate({ operation: 'refund', order_no: 'ord-7', amount: '1' });
    assert.equal(refund.status, 200);
    assert.equal(refund.body.session_id, second);
    assert.equal(refund.body.order_no, 'ord-7');
  });

  it('answers unknown transactions, bad operations and missing references in the failed shape', async () => {
    const unknown = await d.operate({ operation: 'cancel', session_id: 'f'.repeat(40) });
    assert.deepEqual(
      [unknown.status, unknown.body],
      [404, { detail: 'Not found.', operation: 'cancel', result: 'failed' }],
    );
    const unknownOrder = await d.operate({ operation: 'cancel', order_no: 'nope' });
    assert.equal(unknownOrder.status, 404);
    const bad = await d.operate({ operation: 'explode', session_id: 'f'.repeat(40) });
    assert.deepEqual(
      [bad.status, bad.body],
      [
        400,
        {
          detail: '"operation" must be one of: capture, void, refund, cancel, expire, delete.',
          operation: 'explode',
          result: 'failed',
        },
      ],
    );
    const missing = await d.operate({ operation: 'cancel' });
    assert.deepEqual(
      [missing.status, missing.body],
      [
        400,
        {
          detail: 'Send "session_id" or "order_no" to name the transaction.',
          operation: 'cancel',
          result: 'failed',
        },
      ],
    );
  });

  it('takes an API key or a Basic user allowed the gateway, and answers auth errors in the failed shape', async () => {
    const id = await d.inState('created');
    const none = await t
      .http()
      .post(OPERATION_PATH)
      .send({ operation: 'cancel', session_id: id })
      .expect(401);
    // The body of a request without valid credentials is never parsed (contract §3): the operation is unknown.
    assert.deepEqual(none.body, {
      detail: 'Authentication credentials were not provided.',
      operation: null,
      result: 'failed',
    });
    assert.ok(none.headers['www-authenticate']);
    // contract §3: a transaction on a gateway the user may not use answers exactly as an unknown one.
    const otherId = await d.inState('created', { pg_codes: ['other'] });
    const denied = await t
      .http()
      .post(OPERATION_PATH)
      .set('Authorization', s.merchant)
      .send({ operation: 'cancel', session_id: otherId })
      .expect(404);
    assert.deepEqual(denied.body, { detail: 'Not found.', operation: 'cancel', result: 'failed' });
    assert.equal((await d.get(otherId)).state, 'created');
    const ok = await t
      .http()
      .post(OPERATION_PATH)
      .set('Authorization', s.merchant)
      .send({ operation: 'cancel', session_id: id })
      .expect(200);
    assert.equal(ok.body.state, 'canceled');
  });

  describe('Tracking-Key', () => {
    it('returns the first result to a repeat instead of running again', async () => {
      const id = await d.inState('paid');
      const send = () =>
        t
          .http()
          .post(OPERATION_PATH)
          .set('Authorization', s.apiKey)
          .set('Tracking-Key', 'refund-once')
          .send({ operation: 'refund', session_id: id, amount: '10' });
      const first = await send().expect(200);
      const repeat = await send().expect(200);
      assert.deepEqual(repeat.body, first.body);
      assert.equal(repeat.headers['tracking-key-replayed'], 'true');
      assert.equal(first.headers['tracking-key-replayed'], undefined);
      assert.equal((await d.get(id)).refunded_amount, '10.000');
    });

    it('replays a refused first result too, even once the operation would succeed', async () => {
      const id = await d.inState('authorized');
      const send = () =>
        t
          .http()
          .post(OPERATION_PATH)
          .set('Authorization', s.apiKey)
          .set('Tracking-Key', 'void-early')
          .send({ operation: 'refund', session_id: id });
      const first = await send().expect(400);
      await d.operate({ operation: 'capture', session_id: id });
      const repeat = await send().expect(400);
      assert.deepEqual(repeat.body, first.body);
      assert.equal((await d.get(id)).state, 'captured');
    });

    it('refuses the same key with another body (422), and scopes keys to the credential', async () => {
      const id = await d.inState('paid');
      const send = (auth: string, amount: string) =>
        t
          .http()
          .post(OPERATION_PATH)
          .set('Authorization', auth)
          .set('Tracking-Key', 'shared-key')
          .send({ operation: 'refund', session_id: id, amount });
      await send(s.apiKey, '1').expect(200);
      const other = await send(s.apiKey, '2').expect(422);
      assert.deepEqual(other.body, {
        detail: 'This Tracking-Key was already used with another request.',
        operation: 'refund',
        result: 'failed',
      });
      await send(s.merchant, '2').expect(200);
      assert.equal((await d.get(id)).refunded_amount, '3.000');
    });

    it('keeps a key 24 hours like an Idempotency-Key: the sweep forgets it, then it runs again', async () => {
      const id = await d.inState('paid');
      const send = () =>
        t
          .http()
          .post(OPERATION_PATH)
          .set('Authorization', s.apiKey)
          .set('Tracking-Key', 'day-old')
          .send({ operation: 'refund', session_id: id, amount: '1' });
      await send().expect(200);
      assert.equal((await send().expect(200)).headers['tracking-key-replayed'], 'true');
      const idempotency = t.app.get(IdempotencyService);
      assert.equal(await idempotency.sweepExpired(new Date(Date.now() + 23 * 3600_000)), 0);
      assert.equal((await send().expect(200)).headers['tracking-key-replayed'], 'true', 'kept within 24 h');
      assert.ok((await idempotency.sweepExpired(new Date(Date.now() + 25 * 3600_000))) >= 1);
      const again = await send().expect(200);
      assert.equal(again.headers['tracking-key-replayed'], undefined, 'swept: the operation runs again');
      assert.equal((await d.get(id)).refunded_amount, '2.000');
    });

    it('runs a concurrent burst with one key exactly once', async () => {
      const id = await d.inState('paid');
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          t
            .http()
            .post(OPERATION_PATH)
            .set('Authorization', s.apiKey)
            .set('Tracking-Key', 'burst')
            .send({ operation: 'refund', session_id: id, amount: '5' }),
        ),
      );
      for (const r of results) assert.ok([200, 409].includes(r.status), String(r.status));
      assert.ok(results.some((r) => r.status === 200));
      assert.equal((await d.get(id)).refunded_amount, '5.000');
    });
  });

  describe('concurrent operations on one transaction', () => {
    const burst = (n: number, body: Record<string, unknown>) =>
      Promise.all(Array.from({ length: n }, () => d.operate(body)));

    it('lets exactly one of several captures win', async () => {
      const id = await d.inState('authorized');
      const results = await burst(5, { operation: 'capture', session_id: id });
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400, 400]);
      assert.equal((await d.get(id)).captured_amount, '86.000');
    });

    it('lets exactly one of a cancel and an expire win', async () => {
      const id = await d.inState('created');
      const results = await Promise.all([
        d.operate({ operation: 'cancel', session_id: id }),
        d.operate({ operation: 'expire', session_id: id }),
        d.operate({ operation: 'cancel', session_id: id }),
        d.operate({ operation: 'expire', session_id: id }),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400]);
      const winner = results.find((r) => r.status === 200)!;
      assert.equal((await d.get(id)).state, winner.body.state);
    });

    it('lets exactly one of several full refunds win', async () => {
      const id = await d.inState('paid');
      const results = await burst(4, { operation: 'refund', session_id: id });
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400]);
      const now = await d.get(id);
      assert.deepEqual([now.state, now.refunded_amount], ['refunded', '86.000']);
    });

    it('applies every one of several concurrent partial refunds, none lost', async () => {
      const id = await d.inState('paid');
      const results = await burst(5, { operation: 'refund', session_id: id, amount: '10' });
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 200, 200, 200, 200],
      );
      const now = await d.get(id);
      assert.deepEqual([now.state, now.refunded_amount], ['paid', '50.000']);
    });

    it('lets a pay attempt and a cancel race with one winner', async () => {
      const id = await d.inState('created');
      const [paid, canceled] = await Promise.all([
        t
          .http()
          .post(`/b/checkout/v1/test-helpers/pymt-txn/${id}/pay/`)
          .set('Authorization', s.apiKey)
          .send({ card: TEST_CARDS.success }),
        d.operate({ operation: 'cancel', session_id: id }),
      ]);
      const state = (await d.get(id)).state;
      if (state === 'paid') {
        assert.equal(paid.status, 200);
        // refused as no longer cancelable, or (arriving while the gateway was asked) as held by the attempt
        if (canceled.status === 409) {
          assert.deepEqual(canceled.body, {
            detail: ATTEMPT_HOLDS_IT,
            operation: 'cancel',
            result: 'failed',
          });
        } else {
          assert.equal(canceled.status, 400, JSON.stringify(canceled.body));
        }
      } else {
        assert.equal(state, 'canceled');
        assert.equal(canceled.status, 200);
        assert.equal(paid.status, 409);
      }
    });
  });
});
