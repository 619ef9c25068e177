import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { openPaymentPage, savedCardChoices } from '../checkout/page-helpers';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { gatewayTokenOf, listCards, seedSavingGateways } from './saved-card-helpers';
import {
  assertMoneyAudit,
  attemptsOf,
  seedStripeGateways,
  sessionIdOf,
  stripeSettings,
} from './stripe-helpers';

const AUTO_DEBIT = '/b/pbl/v2/auto-debit/';
const INQUIRY = '/b/pbl/v2/inquiry/';
/** A `stripe` gateway that saves cards; Stripe's notifications are sent to its notify URL. */
const SAVING = 'stripe-cards';
/** Stripe's search index: "under normal operating conditions, data is searchable in under 1 minute". */
const SEARCH_LAG_MS = 60_000;

interface OperationRow {
  operation: string;
  state: string;
  operation_key: string;
  message: string | null;
}

/**
 * The Stripe driver at Stripe's edges (contract §20.1), end to end over HTTP against a
 * simulator that behaves as Stripe documents (search that lags a minute, answers lost after the
 * work was done, sessions that stay open after a decline, pending refunds, 3-D Secure for a
 * customer who is present, dynamic payment methods, notifications before the customer's return,
 * malformed events): no charge is lost, none is made twice, and the suite ends with a money audit.
 */
describe('Stripe at its edges: money taken is recorded, never taken twice', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: StripeSimulator;
  let ds: DataSource;
  const since = new Date();

  before(async () => {
    sim = await StripeSimulator.start();
    sim.searchLagMs = SEARCH_LAG_MS;
    t = await startApp({
      env: { PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
      overrides: [stripeSettings(() => sim)],
    });
    sim.webhookUrl = `${t.url}/b/checkout/v1/gateways/${SAVING}/notify/`;
    s = await seedBasics(t);
    await seedStripeGateways(t);
    await seedSavingGateways(t, 'stripe', { saving: SAVING, savingAuth: `${SAVING}-auth` }, 'Stripe');
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(async () => {
    await sim.stop();
    await t.close();
  });

  const get = (path: string) => fetch(new URL(path, t.url), { redirect: 'manual' });
  const stateOf = async (id: string) => String((await d.get(id)).state);
  const eventsOf = async (id: string) => (await adminEvents(t, id)).map((e) => e.event);
  const notify = (body: string, signature: string) =>
    fetch(`${t.url}/b/checkout/v1/gateways/${SAVING}/notify/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
      body,
    });
  const autoDebit = (sessionId: string, token: string) =>
    t.http().post(AUTO_DEBIT).set('Authorization', s.apiKey).send({ session_id: sessionId, token });
  const operationsOf = (sessionId: string) =>
    ds.query<OperationRow[]>(
      `SELECT o.operation, o.state, o.operation_key, o.message
       FROM provider_operations o JOIN transactions t ON t.id = o.transaction_id
       WHERE t.session_id = ? ORDER BY o.id`,
      [sessionId],
    );
  const eventuallyState = (id: string, state: string, what = state) =>
    eventually(async () => ((await stateOf(id)) === state ? true : undefined), 20_000, what);

  /** A transaction on SAVING picked on the checkout page and sent to Stripe (a new card on Stripe's page). */
  async function toStripe(overrides: Record<string, unknown> = {}, save = false) {
    const tx = await d.create({ pg_codes: [SAVING], ...overrides });
    const id = String(tx.session_id);
    const first = await get(`/b/checkout/pay/${SAVING}?session_id=${id}`);
    let location = first.headers.get('location');
    if (first.status === 200) {
      const page = await openPaymentPage(t, `${t.url}/b/checkout/pay/${SAVING}?session_id=${id}`);
      const form: Record<string, string> = { csrf_token: page.token, saved_card: '' };
      if (save) form.save_card = 'true';
      const posted = await t.http().post(page.path).set('Cookie', page.cookie).type('form').send(form);
      assert.equal(posted.status, 303, posted.text);
      location = String(posted.headers.location);
    } else {
      assert.equal(first.status, 303);
    }
    const [attempt] = (await attemptsOf(ds, id)).slice(-1);
    const stripeSession = sessionIdOf(attempt);
    assert.equal(location, `${sim.baseUrl}/c/pay/${stripeSession}`);
    return { id, reference: attempt.reference_number, stripeSession, provider: attempt.provider_data };
  }

  /** A card saved for `customer` by a payment on Stripe's page: its token, Stripe's ids. */
  async function savedCard(customer: string, card = '4242424242424242') {
    const picked = await toStripe({ customer_id: customer }, true);
    const paid = sim.pay(picked.stripeSession, card);
    assert.ok(paid.redirect, paid.error);
    assert.ok([200, 303].includes((await get(paid.redirect)).status));
    await sim.settled();
    const listed = (await listCards(t, s.apiKey, customer)).find(
      (c) => c.number === `**** ${card.slice(-4)}`,
    );
    assert.ok(listed, 'the card is saved');
    const [stripeCustomer, paymentMethod] = (await gatewayTokenOf(ds, listed.token)).split('/');
    return { token: listed.token, stripeCustomer, paymentMethod };
  }

  /** The charges Stripe took for the attempts of a transaction. */
  async function chargesOf(id: string) {
    const references = new Set((await attemptsOf(ds, id)).map((a) => a.reference_number));
    return sim.ledger().filter((c) => c.reference !== null && references.has(c.reference));
  }

  it('a saved-card charge whose answer is lost is asked again under its Idempotency-Key, never searched: 503 pending, 409 for a second charge, charged once', async () => {
    const { token } = await savedCard('edge-lost');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'edge-lost', amount: '86.000' });
    const id = String(tx.session_id);
    // Only Stripe's API can tell: its notifications wait, and its search lags a minute behind.
    sim.holdWebhooks();
    try {
      const searches = sim.apiRequests('GetPaymentIntentsSearch').length;
      // Stripe charges at once; its answer, and that of an immediate second ask, come after the
      // driver's 1.5 s: the outcome is unknown when the merchant is answered.
      sim.delayAnswers(2500, 2);
      const first = await autoDebit(id, token);
      assert.equal(first.status, 503, JSON.stringify(first.body));
      assert.equal(first.body.result, 'pending', 'the merchant learns the outcome later');
      assert.notEqual(await stateOf(id), 'error', 'nothing is settled as failed');

      const second = await autoDebit(id, token);
      assert.equal(second.status, 409, JSON.stringify(second.body));

      await eventuallyState(id, 'paid', 'the lost charge settled paid');
      const attempts = await attemptsOf(ds, id);
      assert.equal(attempts.length, 1, 'one attempt');
      assert.equal(attempts[0].result, 'success');
      const key = `${attempts[0].reference_number}-charge`;
      const sent = sim.apiRequests('PostPaymentIntents').filter((r) => r.idempotencyKey === key);
      assert.ok(sent.length >= 2, 'Stripe was asked again with the same Idempotency-Key');
      assert.ok(
        sent.slice(1).every((r) => r.replayed && r.status === 200),
        'and answered with the first answer, never charging again',
      );
      assert.equal(sim.apiRequests('GetPaymentIntentsSearch').length, searches, 'never a search');
      assert.equal((await chargesOf(id)).length, 1, 'charged once');
    } finally {
      await sim.releaseWebhooks();
      await sim.settled();
    }
    assert.deepEqual(await eventsOf(id), ['created', 'paid'], 'one paid webhook');
  });

  it('a lost saved-card answer, then Stripe’s notification: the notice names the PaymentIntent, which settles it once', async () => {
    const { token } = await savedCard('edge-lost-notified');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'edge-lost-notified' });
    const id = String(tx.session_id);
    sim.holdWebhooks();
    try {
      sim.delayAnswers(2500, 2);
      const first = await autoDebit(id, token);
      assert.equal(first.status, 503, JSON.stringify(first.body));
      assert.equal(first.body.result, 'pending');
    } finally {
      await sim.releaseWebhooks(); // payment_intent.succeeded, signed, naming the reference
      await sim.settled();
    }
    await eventuallyState(id, 'paid');
    const again = await autoDebit(id, token);
    assert.equal(again.status, 409, JSON.stringify(again.body));
    const [attempt] = await attemptsOf(ds, id);
    const [charge] = await chargesOf(id);
    assert.equal(JSON.parse(attempt.provider_data ?? '{}').payment_intent, charge.paymentIntent);
    assert.equal((await chargesOf(id)).length, 1, 'charged once');
    assert.deepEqual(await eventsOf(id), ['created', 'paid']);
  });

  it('a card saved on Stripe’s page is saved when Stripe’s notifications come before the customer (auto_debit with an agreement)', async () => {
    const picked = await toStripe({
      customer_id: 'edge-agreement',
      payment_type: 'auto_debit',
      agreement: { id: 'plan-34', type: 'recurring' },
    });
    const paid = sim.pay(picked.stripeSession, '5555555555554444', {
      expMonth: 9,
      expYear: 2032,
      name: 'Grace Hopper',
    });
    assert.ok(paid.redirect, paid.error);
    await sim.settled(); // checkout.session.completed and payment_intent.succeeded answered first
    await eventuallyState(picked.id, 'paid');
    const cards = await listCards(t, s.apiKey, 'edge-agreement');
    assert.deepEqual(
      cards.map((c) => [c.brand, c.number, c.expiry_month, c.expiry_year, c.name_on_card, c.agreements]),
      [['Mastercard', '**** 4444', '09', '2032', 'Grace Hopper', ['plan-34']]],
    );
    const [paidPayload] = await ds.query<{ payload: string }[]>(
      `SELECT e.payload FROM events e JOIN transactions t ON t.id = e.transaction_id
       WHERE t.session_id = ? AND e.payload LIKE '%"paid"%'`,
      [picked.id],
    );
    const webhook = JSON.parse(String(paidPayload.payload)) as { token: { token: string } | null };
    assert.equal(webhook.token?.token, cards[0].token, 'the paid webhook carries the card');
    const back = await get(paid.redirect);
    assert.ok([200, 303].includes(back.status));
    assert.equal((await listCards(t, s.apiKey, 'edge-agreement')).length, 1);
    assert.deepEqual(await eventsOf(picked.id), ['created', 'paid']);
  });

  it('a pending refund stays pending (503) until Stripe says it succeeded, read back without a second refund', async () => {
    const picked = await toStripe();
    assert.ok([200, 303].includes((await get(sim.pay(picked.stripeSession).redirect!)).status));
    await sim.settled();
    const intentId = String(sim.session(picked.stripeSession)!.payment_intent);
    sim.refundsPending = true;
    const res = await d.operate({ session_id: picked.id, operation: 'refund', amount: '6.000' });
    sim.refundsPending = false;
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.result, 'pending');
    const [refund] = sim.refundsOf(intentId);
    assert.equal(refund.status, 'pending');
    // The reconciler keeps asking while Stripe says pending; nothing changes meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    assert.equal((await d.get(picked.id)).refunded_amount, '0.000');
    sim.settleRefund(refund.id, 'succeeded');
    await eventually(
      async () => ((await d.get(picked.id)).refunded_amount === '6.000' ? true : undefined),
      20_000,
      'the refund read back',
    );
    const [op] = await operationsOf(picked.id);
    assert.equal(op.state, 'success');
    assert.equal(sim.refundsOf(intentId).length, 1, 'one refund at Stripe');
    assert.equal(
      sim.apiRequests('PostRefunds').filter((r) => r.idempotencyKey?.includes(op.operation_key)).length,
      1,
      'never asked to refund again',
    );
    assert.ok(sim.apiRequests('GetRefunds').length > 0, 'read back from the PaymentIntent’s refunds');
    assert.deepEqual(await eventsOf(picked.id), ['created', 'paid', 'refunded']);
  });

  it('a pending refund that then fails at Stripe fails the operation; the transaction keeps its amount', async () => {
    const picked = await toStripe();
    await get(sim.pay(picked.stripeSession).redirect!);
    await sim.settled();
    const intentId = String(sim.session(picked.stripeSession)!.payment_intent);
    sim.refundsPending = true;
    const res = await d.operate({ session_id: picked.id, operation: 'refund' });
    sim.refundsPending = false;
    assert.equal(res.status, 503, JSON.stringify(res.body));
    sim.settleRefund(sim.refundsOf(intentId)[0].id, 'failed', 'lost_or_stolen_card');
    const [op] = await eventually(
      async () => {
        const rows = await operationsOf(picked.id);
        return rows[0]?.state === 'failed' ? rows : undefined;
      },
      20_000,
      'the refund failed',
    );
    assert.match(String(op.message), /lost_or_stolen_card/, 'with Stripe’s reason');
    const now = await d.get(picked.id);
    assert.deepEqual([now.state, now.refunded_amount], ['paid', '0.000']);
    // A refund Stripe cancels is not done either; and one that succeeds at once is a success.
    sim.refundsPending = true;
    const again = await d.operate({ session_id: picked.id, operation: 'refund', amount: '1.000' });
    sim.refundsPending = false;
    assert.equal(again.status, 503, JSON.stringify(again.body));
    sim.settleRefund(sim.refundsOf(intentId)[1].id, 'canceled');
    await eventually(
      async () => ((await operationsOf(picked.id))[1]?.state === 'failed' ? true : undefined),
      20_000,
      'the canceled refund failed',
    );
    const done = await d.operate({ session_id: picked.id, operation: 'refund', amount: '2.000' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal((await d.get(picked.id)).refunded_amount, '2.000');
  });

  it('a saved card picked on our page is charged with the customer present: 3-D Secure on Stripe, back through the return', async () => {
    const three = await savedCard('edge-present', '4000002760003184');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'edge-present' });
    const id = String(tx.session_id);
    const page = await openPaymentPage(t, `${t.url}/b/checkout/pay/${SAVING}?session_id=${id}`);
    const posted = await t
      .http()
      .post(page.path)
      .set('Cookie', page.cookie)
      .type('form')
      .send({ csrf_token: page.token, saved_card: savedCardChoices(page.html)[0] });
    assert.equal(posted.status, 303, posted.text);
    const location = String(posted.headers.location);
    assert.ok(location.startsWith(`${sim.baseUrl}/3ds/`), `sent to authenticate: ${location}`);
    const params = sim.apiRequests('PostPaymentIntents').at(-1)!.params as Record<string, unknown>;
    assert.equal(params.payment_method, three.paymentMethod);
    assert.equal(params.off_session, false, 'customer-initiated');
    assert.equal(params.confirm, true);
    assert.match(String(params.return_url), new RegExp(`/b/checkout/v1/gateways/${SAVING}/return/`));
    assert.equal(await stateOf(id), 'created');
    const intentId = location.slice(`${sim.baseUrl}/3ds/`.length);
    const back = await get(sim.authenticate(intentId, 'complete'));
    assert.ok([200, 303].includes(back.status), `return answered ${back.status}`);
    assert.equal(await stateOf(id), 'paid');
    assert.equal((await chargesOf(id)).length, 1);

    // Authentication failed: a decline, and the transaction stays payable.
    const tx2 = await d.create({ pg_codes: [SAVING], customer_id: 'edge-present' });
    const id2 = String(tx2.session_id);
    const page2 = await openPaymentPage(t, `${t.url}/b/checkout/pay/${SAVING}?session_id=${id2}`);
    const posted2 = await t
      .http()
      .post(page2.path)
      .set('Cookie', page2.cookie)
      .type('form')
      .send({ csrf_token: page2.token, saved_card: savedCardChoices(page2.html)[0] });
    assert.equal(posted2.status, 303, posted2.text);
    const failing = String(posted2.headers.location).slice(`${sim.baseUrl}/3ds/`.length);
    await get(sim.authenticate(failing, 'fail'));
    assert.equal(await stateOf(id2), 'failed');
    const [declined] = await attemptsOf(ds, id2);
    assert.equal(declined.result, 'declined');
    assert.equal(declined.response_code, 'authentication_failure');

    // Auto-debit stays merchant-initiated: off-session, and that card then needs authentication.
    const debit = await autoDebit(id2, three.token).expect(200);
    assert.equal(debit.body.result, 'failed');
    const offSession = sim.apiRequests('PostPaymentIntents').at(-1)!.params as Record<string, unknown>;
    assert.equal(offSession.off_session, true);
    assert.equal(offSession.return_url, undefined);
  });

  it('Checkout Sessions take cards only: a method that settles days later is never offered', async () => {
    const picked = await toStripe({ currency_code: 'USD', amount: '25.00' });
    const params = sim.apiRequests('PostCheckoutSessions').at(-1)!.params as Record<string, unknown>;
    assert.deepEqual(params.allowed_payment_method_types, ['card']);
    assert.match(String(sim.payWithBankAccount(picked.stripeSession).error), /not available/);
    assert.equal(sim.session(picked.stripeSession)!.status, 'open');
    assert.equal((await get(sim.pay(picked.stripeSession).redirect!)).status, 200);
    assert.equal(await stateOf(picked.id), 'paid');
  });

  it('the attempt keeps until when its session can take money: payable_until and resume_until from the session’s expires_at', async () => {
    const picked = await toStripe();
    const provider = JSON.parse(picked.provider ?? '{}') as Record<string, string>;
    const expiresAt = new Date(Number(sim.session(picked.stripeSession)!.expires_at) * 1000).toISOString();
    assert.equal(provider.payable_until, expiresAt);
    assert.ok(provider.resume_until, 'resume_until is kept');
    assert.ok(new Date(provider.resume_until).getTime() <= new Date(expiresAt).getTime());
    assert.ok(new Date(provider.resume_until).getTime() > Date.now());
    assert.equal((await get(sim.pay(picked.stripeSession).redirect!)).status, 200);
  });

  it('bad provider input is 4xx, never 5xx: an empty v1=, events whose data.object is null or missing', async () => {
    const ts = Math.floor(Date.now() / 1000);
    for (const header of [`t=${ts},v1=`, `t=${ts},v1=,v0=abc`, 'v1=', `t=,v1=`, `t=${ts}`]) {
      const res = await notify('{"id":"evt_1","type":"payment_intent.succeeded"}', header);
      assert.equal(res.status, 400, `${header} → ${res.status}`);
    }
    const types = [
      'checkout.session.completed',
      'checkout.session.expired',
      'checkout.session.async_payment_succeeded',
      'payment_intent.succeeded',
      'payment_intent.payment_failed',
      'payment_intent.canceled',
      'payment_intent.amount_capturable_updated',
      'refund.updated',
      'charge.refunded',
    ];
    for (const type of types) {
      const delivery = await sim.sendForgedEvent({ type, object: null }, { secret: sim.webhookSecret });
      assert.ok([200, 400].includes(delivery.status), `${type} with data.object null → ${delivery.status}`);
    }
    const odd = [
      { id: 'evt_x', object: 'event', type: 'payment_intent.succeeded' },
      { id: 'evt_y', object: 'event', type: 'checkout.session.completed', data: null },
      {
        id: 'evt_z',
        object: 'event',
        type: 'payment_intent.succeeded',
        data: { object: { id: 'pi_1', object: 'payment_intent', metadata: null, currency: null } },
      },
      {
        id: 'evt_w',
        object: 'event',
        type: 'checkout.session.completed',
        data: { object: { id: 'cs_1', client_reference_id: 42, payment_intent: { nested: true } } },
      },
    ];
    for (const event of odd) {
      const body = JSON.stringify(event);
      const res = await notify(body, sim.signature(body));
      assert.ok([200, 400].includes(res.status), `${event.id} → ${res.status}`);
    }
    for (const body of ['null', '[]', '"text"', '{']) {
      const res = await notify(body, sim.signature(body));
      assert.equal(res.status, 400, `${body} → ${res.status}`);
    }
  });

  it('Stripe’s own error status never becomes ours on inquiry: 502 or 503 with the provider’s error', async () => {
    const picked = await toStripe();
    for (const [status, ours] of [
      [401, 502],
      [403, 502],
      [409, 502],
      [429, 503],
      [500, 503],
    ] as const) {
      sim.failNext(Number.POSITIVE_INFINITY, status); // every try, retries included
      const res = await t.http().post(INQUIRY).set('Authorization', s.apiKey).send({ session_id: picked.id });
      sim.failNext(0);
      assert.equal(res.status, ours, `Stripe ${status} → ${res.status} ${JSON.stringify(res.body)}`);
      assert.ok('provider_error' in (res.body as Record<string, unknown>), JSON.stringify(res.body));
    }
    assert.equal(await stateOf(picked.id), 'created');
    assert.equal((await get(sim.pay(picked.stripeSession).redirect!)).status, 200);
  });

  it('money audit: every charge Stripe took is one paid transaction, and reconciliation reports no mismatch', async () => {
    await sim.releaseWebhooks();
    await sim.settled();
    await assertMoneyAudit(t, ds, sim, since);
  });
});
