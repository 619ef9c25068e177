import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { attemptsOf, seedStripeGateways, sessionIdOf, stripeSettings } from '../payments/stripe-helpers';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { HttpReceiver } from '../sinks/http-receiver';
import { seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { createTestDatabase } from '../setup/test-database';

/**
 * Operations a provider leaves unanswered (contract §20 "Operations", §17), end to end over HTTP with
 * the Stripe simulator: a 503 `pending` answer, the reconciler finishing the operation with the same
 * Idempotency-Key, the merchant's webhook telling the outcome, a second operation refused while one
 * is pending, and a restart in between.
 */

/**
 * The reconciler ticks every second; a pending operation is asked about again 4 s after its last
 * call (PAYMENT_ATTEMPT_TIMEOUT_SECONDS), well after the simulator's late answer, and after the 2 s
 * a second operation waits before it is refused.
 */
const ENV = {
  PAYMENT_RECONCILE_SECONDS: '1',
  PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '4',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  DISPATCH_INTERVAL_MS: '100',
};
/** Longer than the driver's timeout_ms (1500 in stripeSettings): the call gets no answer in time. */
const LATE_MS = 2500;

interface OperationRow {
  operation: string;
  state: string;
  operation_key: string;
  message: string | null;
  open_transaction_id: string | number | null;
  settled_at: unknown;
}

function operationsOf(ds: DataSource, sessionId: string): Promise<OperationRow[]> {
  return ds.query<OperationRow[]>(
    `SELECT o.operation, o.state, o.operation_key, o.message, o.open_transaction_id, o.settled_at
     FROM provider_operations o JOIN transactions t ON t.id = o.transaction_id
     WHERE t.session_id = ? ORDER BY o.id`,
    [sessionId],
  );
}

/** A transaction paid (or authorized) through Stripe: picked, paid on Stripe's page, returned. */
async function paidThroughStripe(
  t: TestApp,
  d: TransactionDriver,
  sim: StripeSimulator,
  ds: DataSource,
  pg: string,
  webhookUrl: string,
): Promise<{ id: string; intentId: string }> {
  const tx = await d.create({ pg_codes: [pg], webhook_url: webhookUrl });
  const id = String(tx.session_id);
  const pick = await fetch(new URL(`/b/checkout/pay/${pg}?session_id=${id}`, t.url), { redirect: 'manual' });
  assert.equal(pick.status, 303);
  const stripeSession = sessionIdOf((await attemptsOf(ds, id))[0]);
  const back = await fetch(sim.pay(stripeSession).redirect!, { redirect: 'manual' });
  assert.equal(back.status, 200);
  // Stripe's notifications of the payment are answered first: no other call takes the late answer.
  await sim.settled();
  return { id, intentId: String(sim.session(stripeSession)!.payment_intent) };
}

/** The webhooks the receiver got for a transaction, by event name. */
const hooksFor = (receiver: HttpReceiver, id: string) =>
  receiver.received.map((r) => r.json).filter((body) => body.session_id === id);

describe('Operations left pending by the provider (contract §20)', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: StripeSimulator;
  let ds: DataSource;
  let hooks: HttpReceiver;

  before(async () => {
    sim = await StripeSimulator.start();
    hooks = await HttpReceiver.start();
    t = await startApp({ env: ENV, overrides: [stripeSettings(() => sim)] });
    sim.webhookUrl = `${t.url}/b/checkout/v1/gateways/stripe/notify/`;
    s = await seedBasics(t);
    await seedStripeGateways(t);
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(async () => {
    await t.close();
    await sim.stop();
    await hooks.stop();
  });

  const stateOf = async (id: string) => d.get(id);

  it('a refund that times out: 503 pending, then the reconciler reads it back from Stripe: carried out once', async () => {
    const { id } = await paidThroughStripe(t, d, sim, ds, 'stripe', hooks.url);
    sim.delayAnswers(LATE_MS);
    const res = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.deepEqual(
      { operation: res.body.operation, result: res.body.result },
      { operation: 'refund', result: 'pending' },
    );
    const [pending] = await operationsOf(ds, id);
    assert.equal(pending.state, 'pending');
    assert.equal((await stateOf(id)).refunded_amount, '0.000', 'nothing changes before Stripe confirms');

    const now = await eventually(
      async () => {
        const tx = await stateOf(id);
        return tx.refunded_amount === '6.000' ? tx : undefined;
      },
      20_000,
      'the refund reconciled',
    );
    assert.equal(now.state, 'paid', 'a partial refund leaves the state');
    const [done] = await operationsOf(ds, id);
    assert.equal(done.state, 'success');
    assert.equal(done.open_transaction_id, null);

    const refunds = sim
      .apiRequests('PostRefunds')
      .filter((r) => r.idempotencyKey?.includes(done.operation_key));
    // Sent once; asked about again by reading the PaymentIntent's refunds back, never by sending it
    // again (an idempotent replay would repeat the first answer: docs/gateways/stripe.md "Refunds").
    assert.equal(refunds.length, 1, 'sent once');
    assert.deepEqual(
      refunds.map((r) => r.replayed),
      [false],
    );
    assert.ok(sim.apiRequests('GetRefunds').length >= 1, 'read back from Stripe');

    const told = await eventually(
      () => Promise.resolve(hooksFor(hooks, id).find((body) => body.event === 'refunded')),
      15_000,
      'the refunded webhook',
    );
    assert.deepEqual(
      [told.operation, told.operation_amount, told.result, told.refunded_amount],
      ['refund', '6.000', 'success', '6.000'],
    );
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid', 'refunded'],
    );
  });

  it('a capture left pending that Stripe refused: closed as failed, the transaction unchanged, the merchant told', async () => {
    const { id, intentId } = await paidThroughStripe(t, d, sim, ds, 'stripe-auth', hooks.url);
    assert.equal((await stateOf(id)).state, 'authorized');
    // Released on Stripe's side meanwhile: Stripe refuses the capture, and its answer comes late.
    sim.setPaymentIntentStatus(intentId, 'canceled', false);
    sim.delayAnswers(LATE_MS);
    const res = await d.operate({ session_id: id, operation: 'capture', amount: '50.000' });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.result, 'pending');

    const [failed] = await eventually(
      async () => {
        const rows = await operationsOf(ds, id);
        return rows[0]?.settled_at ? rows : undefined;
      },
      20_000,
      'the capture reconciled',
    );
    assert.equal(failed.state, 'failed');
    assert.match(String(failed.message), /could not be captured/);
    const now = await stateOf(id);
    assert.deepEqual([now.state, now.captured_amount], ['authorized', '0.000']);
    const captures = sim
      .apiRequests('PostPaymentIntentsIntentCapture')
      .filter((r) => r.path.includes(intentId));
    assert.equal(captures.length, 2);
    assert.equal(captures[0].idempotencyKey, captures[1].idempotencyKey);

    const told = await eventually(
      () => Promise.resolve(hooksFor(hooks, id).find((body) => body.event === 'failed')),
      15_000,
      'the failed webhook',
    );
    assert.deepEqual(
      [told.state, told.operation, told.operation_amount, told.result],
      ['authorized', 'capture', '50.000', 'failed'],
    );
    assert.match(String(told.message), /could not be captured/);
  });

  it('a second operation while one is pending is refused (409) and never reaches Stripe', async () => {
    const { id } = await paidThroughStripe(t, d, sim, ds, 'stripe', hooks.url);
    sim.delayAnswers(LATE_MS);
    const first = await d.operate({ session_id: id, operation: 'refund', amount: '10.000' });
    assert.equal(first.status, 503);
    const refundsBefore = sim.apiRequests('PostRefunds').length;
    // Both at once: each waits a moment for the pending one, which Stripe has not confirmed by then.
    const seconds = await Promise.all([
      d.operate({ session_id: id, operation: 'refund', amount: '1.000' }),
      d.operate({ session_id: id, operation: 'refund' }),
    ]);
    for (const second of seconds) {
      assert.equal(second.status, 409, JSON.stringify(second.body));
      assert.deepEqual(
        { operation: second.body.operation, result: second.body.result },
        { operation: 'refund', result: 'failed' },
      );
      assert.match(String(second.body.detail), /waiting for the gateway/);
    }
    assert.equal(sim.apiRequests('PostRefunds').length, refundsBefore, 'Stripe got no second refund');
    // The first one is finished by the reconciler; the transaction takes operations again.
    await eventually(
      async () => ((await stateOf(id)).refunded_amount === '10.000' ? true : undefined),
      20_000,
      'the first refund reconciled',
    );
    const next = await d.operate({ session_id: id, operation: 'refund', amount: '1.000' });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal((await stateOf(id)).refunded_amount, '11.000');
  });
});

describe('A pending operation survives a restart (contract §17, §20)', () => {
  it('the app is closed after the 503 pending; a new one on the same database reconciles it', async () => {
    const db = await createTestDatabase();
    const sim = await StripeSimulator.start();
    const hooks = await HttpReceiver.start();
    const options = { env: ENV, overrides: [stripeSettings(() => sim)], db };
    let first: TestApp | null = await startApp(options);
    let second: TestApp | null = null;
    try {
      const s = await seedBasics(first);
      await seedStripeGateways(first);
      const { id } = await paidThroughStripe(
        first,
        new TransactionDriver(first, s.apiKey),
        sim,
        dataSourceOf(first),
        'stripe',
        hooks.url,
      );
      sim.delayAnswers(LATE_MS);
      const res = await new TransactionDriver(first, s.apiKey).operate({
        session_id: id,
        operation: 'refund',
      });
      assert.equal(res.status, 503);
      await first.close();
      first = null;

      second = await startApp(options);
      const d = new TransactionDriver(second, s.apiKey);
      const now = await eventually(
        async () => {
          const tx = await d.get(id);
          return tx.state === 'refunded' ? tx : undefined;
        },
        20_000,
        'the refund reconciled by the new app',
      );
      assert.equal(now.refunded_amount, '86.000');
      const [op] = await operationsOf(dataSourceOf(second), id);
      assert.equal(op.state, 'success');
      const refunds = sim.apiRequests('PostRefunds');
      assert.equal(refunds.length, 1, 'sent once, before the restart');
      assert.deepEqual(
        refunds.map((r) => r.replayed),
        [false],
      );
      assert.ok(sim.apiRequests('GetRefunds').length >= 1, 'the new app read it back from Stripe');
      const told = await eventually(
        () => Promise.resolve(hooksFor(hooks, id).find((body) => body.event === 'refunded')),
        15_000,
        'the refunded webhook',
      );
      assert.equal(told.operation, 'refund');
    } finally {
      await first?.close();
      await second?.close();
      await db.drop();
      await sim.stop();
      await hooks.stop();
    }
  });
});
