import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import {
  assertMoneyAudit,
  attemptsOf,
  seedStripeGateways,
  sessionIdOf,
  stripeSettings,
} from './stripe-helpers';

const INQUIRY = '/b/pbl/v2/inquiry/';

/**
 * Paying through Stripe (contract §20) end to end over HTTP, against the Stripe simulator: the pick
 * that claims and 303s to Stripe, the customer's return confirmed server to server, signed
 * notifications in any order and number, forged ones, amount mismatches, operations, inquiry and a
 * provider that times out and is reconciled later. The browser round trip is stripe-browser's.
 */
describe('Stripe driver: pay, return, notify, operate', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: StripeSimulator;
  let ds: DataSource;
  const since = new Date();

  before(async () => {
    sim = await StripeSimulator.start();
    t = await startApp({
      env: { PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
      overrides: [stripeSettings(() => sim)],
    });
    sim.webhookUrl = `${t.url}/b/checkout/v1/gateways/stripe/notify/`;
    s = await seedBasics(t);
    await seedStripeGateways(t);
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(async () => {
    await sim.stop();
    await t.close();
  });

  const get = (path: string) => fetch(new URL(path, t.url), { redirect: 'manual' });
  const stateOf = async (id: string) => String((await d.get(id)).state);

  /** A transaction on `pg`, picked on the checkout page: the 303 to Stripe and the attempt's session. */
  async function pick(pg = 'stripe', overrides: Record<string, unknown> = {}) {
    const tx = await d.create({ pg_codes: [pg], ...overrides });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/${pg}?session_id=${id}`);
    assert.equal(res.status, 303);
    const location = res.headers.get('location')!;
    const [attempt] = await attemptsOf(ds, id);
    const stripeSession = sessionIdOf(attempt);
    assert.equal(location, `${sim.baseUrl}/c/pay/${stripeSession}`);
    return { id, location, reference: attempt.reference_number, stripeSession };
  }

  /** The customer comes back through `url` (our return URL): the answer, not followed. */
  const comeBack = (url: string) => get(url);
  /**
   * The customer cancels on Stripe's page: no open session is left for the reconciler to keep
   * asking about while later tests count on the simulator's next answers.
   */
  const leave = async (stripeSession: string) => {
    assert.equal((await comeBack(String(sim.session(stripeSession)!.cancel_url))).status, 303);
  };

  it('picking Stripe claims the transaction and sends the customer to a Checkout Session of the stored amount', async () => {
    const { id, reference, stripeSession } = await pick();
    const session = sim.session(stripeSession)!;
    assert.equal(session.client_reference_id, reference);
    assert.equal(session.amount_total, 86000);
    assert.equal(session.currency, 'kwd');
    assert.equal(session.mode, 'payment');
    const created = sim.apiRequests('PostCheckoutSessions').at(-1)!;
    assert.equal(created.idempotencyKey, `${reference}-session`);
    assert.match(String(session.success_url), /\/b\/checkout\/v1\/gateways\/stripe\/return\/\?ref=/);
    const held = await ds.query<{ attempt_in_flight: string }[]>(
      'SELECT attempt_in_flight FROM transactions WHERE session_id = ?',
      [id],
    );
    assert.equal(held[0].attempt_in_flight, reference);
    // Picking it again while the session is open sends the customer back to the same session.
    const again = await get(`/b/checkout/pay/stripe?session_id=${id}`);
    assert.equal(again.status, 303);
    assert.equal(again.headers.get('location'), `${sim.baseUrl}/c/pay/${stripeSession}`);
    assert.equal((await attemptsOf(ds, id)).length, 1);
    await leave(stripeSession);
  });

  it('pays: the return is confirmed with Stripe and settles once; the notification after it changes nothing', async () => {
    sim.holdWebhooks();
    const { id, reference, stripeSession } = await pick();
    const { redirect } = sim.pay(stripeSession);
    const back = await comeBack(redirect!);
    assert.equal(back.status, 200);
    assert.match(await back.text(), new RegExp(reference));
    assert.equal(await stateOf(id), 'paid');
    const retrieved = sim.apiRequests('GetCheckoutSessionsSession').at(-1)!;
    assert.equal(retrieved.path, `/v1/checkout/sessions/${stripeSession}`);
    const deliveries = await sim.releaseWebhooks({ duplicate: true });
    assert.ok(deliveries.length > 0);
    for (const delivery of deliveries) assert.equal(delivery.status, 200, delivery.type);
    const events = await adminEvents(t, id);
    assert.deepEqual(
      events.map((e) => e.event),
      ['created', 'paid'],
    );
    const [attempt] = await attemptsOf(ds, id);
    assert.equal(attempt.result, 'success');
    assert.equal(attempt.response_code, 'succeeded');
  });

  it('a notification before the return settles it; the return then only shows the outcome', async () => {
    const { id, reference, stripeSession } = await pick();
    const { redirect } = sim.pay(stripeSession);
    await sim.settled();
    assert.equal(await stateOf(id), 'paid');
    const back = await comeBack(redirect!);
    assert.equal(back.status, 200);
    assert.match(await back.text(), new RegExp(reference));
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });

  it('notifications in reverse order and repeated settle only once', async () => {
    sim.holdWebhooks();
    const { id, stripeSession } = await pick();
    sim.pay(stripeSession);
    const deliveries = await sim.releaseWebhooks({ reverse: true, duplicate: true });
    for (const delivery of deliveries) assert.equal(delivery.status, 200, delivery.type);
    const first = deliveries.find((x) => x.type === 'checkout.session.completed')!;
    assert.equal((await sim.replayEvent(first.eventId)).status, 200);
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });

  it('a forged or stale notification is refused with 400 and changes nothing', async () => {
    const { id, reference, stripeSession } = await pick();
    const intent = {
      id: 'pi_3Forged',
      object: 'payment_intent',
      amount: 86000,
      currency: 'kwd',
      status: 'succeeded',
      metadata: { reference_number: reference },
    };
    const forged = await sim.sendForgedEvent({ type: 'payment_intent.succeeded', object: intent });
    assert.equal(forged.status, 400);
    const stale = await sim.sendForgedEvent(
      { type: 'payment_intent.succeeded', object: intent },
      { secret: sim.webhookSecret, timestamp: Math.floor(Date.now() / 1000) - 600 },
    );
    assert.equal(stale.status, 400);
    const unsigned = await fetch(`${t.url}/b/checkout/v1/gateways/stripe/notify/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'payment_intent.succeeded', data: { object: intent } }),
    });
    assert.equal(unsigned.status, 400);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await attemptsOf(ds, id);
    assert.equal(attempt.result, 'pending');
    await leave(stripeSession);
  });

  it('a gateway without webhook_secret refuses every notification (400)', async () => {
    const res = await fetch(`${t.url}/b/checkout/v1/gateways/stripe-nohook/notify/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': sim.signature('{}') },
      body: '{}',
    });
    assert.equal(res.status, 400);
  });

  it('a signed notification for another amount never pays the attempt: logged, left to inquiry', async () => {
    const { id, reference, stripeSession } = await pick();
    const delivery = await sim.sendForgedEvent(
      {
        type: 'payment_intent.succeeded',
        object: {
          id: 'pi_3Mismatch',
          object: 'payment_intent',
          amount: 1000,
          amount_received: 1000,
          currency: 'kwd',
          status: 'succeeded',
          metadata: { reference_number: reference },
        },
      },
      { secret: sim.webhookSecret },
    );
    assert.equal(delivery.status, 200);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await attemptsOf(ds, id);
    assert.equal(attempt.result, 'pending');
    assert.equal(attempt.settled_at, null);
    await leave(stripeSession);
  });

  it('cancel on Stripe’s page: the session is expired and the transaction is payable again', async () => {
    const { id, stripeSession } = await pick();
    const back = await comeBack(String(sim.session(stripeSession)!.cancel_url));
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(sim.session(stripeSession)!.status, 'expired');
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await attemptsOf(ds, id);
    assert.notEqual(attempt.settled_at, null);
    // and it can be paid again, through a new session
    const again = await get(`/b/checkout/pay/stripe?session_id=${id}`);
    assert.equal(again.status, 303);
    assert.notEqual(again.headers.get('location'), `${sim.baseUrl}/c/pay/${stripeSession}`);
  });

  it('a declined card then cancel: the attempt is declined (failed), and the transaction stays payable', async () => {
    const { id, stripeSession } = await pick();
    const declined = sim.pay(stripeSession, '4000000000000002');
    assert.ok(declined.error);
    assert.equal(await stateOf(id), 'created', 'a decline on Stripe’s page decides nothing yet');
    const back = await comeBack(String(sim.session(stripeSession)!.cancel_url));
    assert.equal(back.status, 303);
    assert.equal(await stateOf(id), 'failed');
    const [attempt] = await attemptsOf(ds, id);
    assert.equal(attempt.result, 'declined');
    assert.equal(attempt.response_code, 'generic_decline');
  });

  it('authorize, then capture part of it at Stripe', async () => {
    const { id, stripeSession } = await pick('stripe-auth');
    await comeBack(sim.pay(stripeSession).redirect!);
    assert.equal(await stateOf(id), 'authorized');
    const intentId = String(sim.session(stripeSession)!.payment_intent);
    assert.equal(sim.paymentIntent(intentId)!.status, 'requires_capture');
    const res = await d.operate({ session_id: id, operation: 'capture', amount: '50.000' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'captured');
    assert.equal(sim.paymentIntent(intentId)!.status, 'succeeded');
    assert.equal(sim.paymentIntent(intentId)!.amount_received, 50000);
  });

  it('authorize, then void at Stripe', async () => {
    const { id, stripeSession } = await pick('stripe-auth');
    await comeBack(sim.pay(stripeSession).redirect!);
    const res = await d.operate({ session_id: id, operation: 'void' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'voided');
    const intentId = String(sim.session(stripeSession)!.payment_intent);
    assert.equal(sim.paymentIntent(intentId)!.status, 'canceled');
  });

  it('refunds part, then the rest, at Stripe', async () => {
    const { id, stripeSession } = await pick();
    await comeBack(sim.pay(stripeSession).redirect!);
    const part = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(part.status, 200, JSON.stringify(part.body));
    assert.equal(part.body.state, 'paid', 'a partial refund leaves the state');
    const rest = await d.operate({ session_id: id, operation: 'refund', amount: '80.000' });
    assert.equal(rest.status, 200, JSON.stringify(rest.body));
    assert.equal(rest.body.state, 'refunded');
    const refunds = sim.apiRequests('PostRefunds').filter((r) => r.status === 200);
    assert.deepEqual(
      refunds.slice(-2).map((r) => r.params?.amount),
      [6000, 80000],
    );
  });

  it('a refund Stripe refuses is refused (400 failed) and changes nothing', async () => {
    const { id, stripeSession } = await pick();
    await comeBack(sim.pay(stripeSession).redirect!);
    // Refunded on Stripe's Dashboard meanwhile: Stripe refuses another refund of the charge.
    const intentId = String(sim.session(stripeSession)!.payment_intent);
    sim.setPaymentIntentStatus(intentId, 'canceled', false);
    const res = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(res.status, 400);
    assert.equal(res.body.result, 'failed');
    assert.equal(await stateOf(id), 'paid');
  });

  it('inquiry asks Stripe about a customer who paid but never came back', async () => {
    sim.holdWebhooks();
    const { id, stripeSession } = await pick();
    sim.pay(stripeSession);
    const res = await t.http().post(INQUIRY).set('Authorization', s.apiKey).send({ session_id: id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(await stateOf(id), 'paid');
    await sim.releaseWebhooks();
  });

  it('Stripe too slow on the return: the page that reloads itself, then the reconciler settles it', async () => {
    sim.holdWebhooks();
    const { id, reference, stripeSession } = await pick();
    const { redirect } = sim.pay(stripeSession);
    sim.delayAnswers(3000);
    const back = await comeBack(redirect!);
    assert.equal(back.status, 200);
    assert.equal(back.headers.get('refresh'), '3');
    const page = await back.text();
    assert.match(page, /data-testid="confirming"/);
    assert.match(page, new RegExp(reference));
    assert.equal(await stateOf(id), 'created');
    await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 15_000, 'paid');
    const reload = await comeBack(redirect!);
    assert.equal(reload.status, 200);
    assert.equal(reload.headers.get('refresh'), null);
    await sim.releaseWebhooks();
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });

  it('Stripe unreachable when the customer picks it: 503 page, the transaction stays payable', async () => {
    const tx = await d.create({ pg_codes: ['stripe-down'] });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/stripe-down?session_id=${id}`);
    assert.equal(res.status, 503);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await attemptsOf(ds, id);
    assert.notEqual(attempt.settled_at, null);
  });

  it('money audit: every charge Stripe took is one paid transaction, and reconciliation reports no mismatch', async () => {
    await sim.releaseWebhooks();
    await sim.settled();
    await assertMoneyAudit(t, ds, sim, since);
  });
});
