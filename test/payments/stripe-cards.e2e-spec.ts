import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { openPaymentPage, savedCardChoices } from '../checkout/page-helpers';
import { dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { seedBasics, type Seeded } from '../setup/fixtures';
import {
  type CardJson,
  gatewayTokenOf as savedGatewayToken,
  listCards,
  seedSavingGateways,
} from './saved-card-helpers';
import { startApp, type TestApp } from '../setup/test-app';
import {
  assertMoneyAudit,
  attemptsOf,
  seedStripeGateways,
  sessionIdOf,
  stripeSettings,
} from './stripe-helpers';
import { CapturedLogs } from '../setup/captured-logs';

const AUTO_DEBIT = '/b/pbl/v2/auto-debit/';
/** A `stripe` gateway that saves cards (contract §15, §20), and one that authorizes only. */
const SAVING = 'stripe-cards';
const SAVING_AUTH = 'stripe-cards-auth';

/**
 * Saved cards through Stripe (contract §15, §20 "Saved cards"), end to end over HTTP against the
 * Stripe simulator: a card saved on Stripe's page (our page asks first; `payment_type` saves
 * anyway), listed with what may be kept of it and nothing of Stripe's ids; the same card saved
 * twice is one card; auto-debit and the payment page's saved card charged off-session (success,
 * decline, authentication required, a Stripe that does not answer in time); a gateway that is not
 * tokenizable never saves; no PaymentMethod or Customer id in webhooks or logs.
 */
describe('Stripe saved cards: save on Stripe’s page, charge off-session', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: StripeSimulator;
  let ds: DataSource;
  const since = new Date();
  const logCapture = new CapturedLogs();
  const logLines = logCapture.lines;

  before(async () => {
    logCapture.start();
    sim = await StripeSimulator.start();
    t = await startApp({
      env: { LOG_LEVEL: 'trace', PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
      overrides: [stripeSettings(() => sim)],
    });
    sim.webhookUrl = `${t.url}/b/checkout/v1/gateways/${SAVING}/notify/`;
    s = await seedBasics(t);
    await seedStripeGateways(t);
    await seedSavingGateways(t, 'stripe', { saving: SAVING, savingAuth: SAVING_AUTH }, 'Stripe');
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(async () => {
    await sim.stop();
    await t.close();
    logCapture.stop();
  });

  const get = (path: string) => fetch(new URL(path, t.url), { redirect: 'manual' });
  const stateOf = async (id: string) => String((await d.get(id)).state);

  const cardsOf = (customer: string) => listCards(t, s.apiKey, customer);
  const gatewayTokenOf = (token: string) => savedGatewayToken(ds, token);

  const autoDebit = (sessionId: string, token: string, key?: string) => {
    const req = t.http().post(AUTO_DEBIT).set('Authorization', s.apiKey);
    if (key) req.set('Idempotency-Key', key);
    return req.send({ session_id: sessionId, token });
  };

  /**
   * A transaction of `customer` on `pg`, picked on the checkout page: our page first when it offers
   * a choice (the save box ticked when `save`), then the 303 to Stripe's page.
   */
  async function toStripe(
    customer: string,
    options: { pg?: string; save?: boolean; overrides?: Record<string, unknown> } = {},
  ) {
    const pg = options.pg ?? SAVING;
    const tx = await d.create({ pg_codes: [pg], customer_id: customer, ...options.overrides });
    const id = String(tx.session_id);
    const first = await get(`/b/checkout/pay/${pg}?session_id=${id}`);
    let location = first.headers.get('location');
    if (first.status === 200) {
      const page = await openPaymentPage(t, `${t.url}/b/checkout/pay/${pg}?session_id=${id}`);
      const form: Record<string, string> = { csrf_token: page.token, saved_card: '' };
      if (options.save) form.save_card = 'true';
      const posted = await t.http().post(page.path).set('Cookie', page.cookie).type('form').send(form);
      assert.equal(posted.status, 303, posted.text);
      location = String(posted.headers.location);
    } else {
      assert.equal(first.status, 303);
    }
    const [attempt] = (await attemptsOf(ds, id)).slice(-1);
    const stripeSession = sessionIdOf(attempt);
    assert.equal(location, `${sim.baseUrl}/c/pay/${stripeSession}`);
    return { id, reference: attempt.reference_number, stripeSession };
  }

  /** Pays the Stripe session with `card` and comes back through the return URL: the transaction's state. */
  async function payOnStripe(
    picked: { id: string; stripeSession: string },
    card = '4242424242424242',
    details = { expMonth: 11, expYear: 2031, name: 'Ada Lovelace' },
  ): Promise<string> {
    const paid = sim.pay(picked.stripeSession, card, details);
    assert.ok(paid.redirect, paid.error);
    const back = await get(paid.redirect);
    assert.ok([200, 303].includes(back.status), `return answered ${back.status}`);
    return stateOf(picked.id);
  }

  /** A card saved for `customer` by a payment on Stripe's page: its listing and Stripe's ids. */
  async function savedCard(customer: string, card = '4242424242424242', pg = SAVING) {
    const picked = await toStripe(customer, { pg, save: true });
    assert.ok(['paid', 'authorized'].includes(await payOnStripe(picked, card)));
    const listed = (await cardsOf(customer)).find(
      (c) => c.number === `**** ${card.slice(-4)}` && c.pg_code === pg,
    );
    assert.ok(listed, 'the card is listed for the customer');
    const [stripeCustomer, paymentMethod] = (await gatewayTokenOf(listed.token)).split('/');
    return { listed, stripeCustomer, paymentMethod, picked };
  }

  it('a ticked "save this card" sends the customer to a Checkout Session that saves it for off-session use', async () => {
    const page = await openPaymentPage(
      t,
      `${t.url}/b/checkout/pay/${SAVING}?session_id=${String(
        (await d.create({ pg_codes: [SAVING], customer_id: 'cust-page' })).session_id,
      )}`,
    );
    assert.match(page.html, /name="save_card"/);
    const csp = String((await t.http().get(page.path)).headers['content-security-policy']);
    assert.match(
      csp,
      new RegExp(`form-action 'self' ${sim.baseUrl}(;|$)`),
      'the form may go on to Stripe’s page',
    );
    assert.doesNotMatch(
      page.html,
      /name="card"|name="cvc"|name="saved_cvc"/,
      'the card is typed on Stripe’s page',
    );

    const picked = await toStripe('cust-save', { save: true });
    const created = sim.apiRequests('PostCheckoutSessions').at(-1)!;
    const params = created.params as { customer?: string; payment_intent_data?: Record<string, unknown> };
    assert.ok(params.customer?.startsWith('cus_'));
    assert.equal(params.payment_intent_data?.setup_future_usage, 'off_session');
    const newCustomer = sim.apiRequests('PostCustomers').at(-1)!;
    assert.equal(newCustomer.idempotencyKey, `${picked.reference}-customer`);
    assert.deepEqual((newCustomer.params as { metadata?: unknown }).metadata, { customer_id: 'cust-save' });

    assert.equal(await payOnStripe(picked), 'paid');
    const cards = await cardsOf('cust-save');
    assert.equal(cards.length, 1);
    const [card] = cards;
    assert.equal(card.pg_code, SAVING);
    assert.equal(card.brand, 'Visa');
    assert.equal(card.number, '**** 4242');
    assert.equal(card.expiry_month, '11');
    assert.equal(card.expiry_year, '2031');
    assert.equal(card.name_on_card, 'Ada Lovelace');
    assert.equal(card.cvv_required, false, 'Stripe charges its saved card without a CVC');
    assert.ok(card.token.length >= 32);
    const body = JSON.stringify(cards);
    assert.doesNotMatch(body, /pm_|cus_|4242424242424242/, 'no Stripe id or card number in the listing');
    const [stripeCustomer, paymentMethod] = (await gatewayTokenOf(card.token)).split('/');
    assert.equal(stripeCustomer, params.customer);
    assert.deepEqual(
      sim.paymentMethodsOf(stripeCustomer).map((pm) => pm.id),
      [paymentMethod],
      'the gateway token names the PaymentMethod Stripe attached to the Customer',
    );
    // The paid webhook carries the card as `token`, never Stripe's ids.
    const events = await ds.query<{ payload: string }[]>(
      'SELECT e.payload FROM events e JOIN transactions t ON t.id = e.transaction_id WHERE t.session_id = ?',
      [picked.id],
    );
    const paidEvent = events.map((e) => String(e.payload)).find((p) => p.includes('"paid"'))!;
    assert.ok(paidEvent.includes(card.token));
    assert.doesNotMatch(paidEvent, /pm_|cus_/);
  });

  it('the same card saved twice is one card, under the Customer of the first', async () => {
    const first = await savedCard('cust-twice');
    const customersBefore = sim.apiRequests('PostCustomers').length;
    const again = await toStripe('cust-twice', { save: true });
    assert.equal(sim.apiRequests('PostCustomers').length, customersBefore, 'the Customer is reused');
    assert.equal(
      (sim.apiRequests('PostCheckoutSessions').at(-1)!.params as { customer?: string }).customer,
      first.stripeCustomer,
    );
    assert.equal(await payOnStripe(again), 'paid');
    const cards = await cardsOf('cust-twice');
    assert.equal(cards.length, 1, 'one card');
    assert.equal(cards[0].token, first.listed.token, 'it keeps its token');
    const [, paymentMethod] = (await gatewayTokenOf(cards[0].token)).split('/');
    assert.notEqual(paymentMethod, first.paymentMethod, 'and charges the PaymentMethod saved last');

    const other = await toStripe('cust-twice', { save: true });
    assert.equal(await payOnStripe(other, '5555555555554444'), 'paid');
    const both = await cardsOf('cust-twice');
    assert.deepEqual(
      both.map((c) => `${c.brand} ${c.number}`),
      ['Mastercard **** 4444', 'Visa **** 4242'],
    );
  });

  it('payment_type auto_debit saves without asking, under its agreement, also when a notification settles it', async () => {
    sim.holdWebhooks();
    const picked = await toStripe('cust-agreement', {
      overrides: { payment_type: 'auto_debit', agreement: { id: 'plan-7', type: 'recurring' } },
    });
    const params = sim.apiRequests('PostCheckoutSessions').at(-1)!.params as {
      payment_intent_data?: Record<string, unknown>;
    };
    assert.equal(params.payment_intent_data?.setup_future_usage, 'off_session');
    const paid = sim.pay(picked.stripeSession, '4242424242424242');
    assert.ok(paid.redirect);
    // The customer never comes back: Stripe's notifications settle it.
    await sim.releaseWebhooks();
    await sim.settled();
    await eventually(async () => ((await stateOf(picked.id)) === 'paid' ? true : undefined));
    const cards = await cardsOf('cust-agreement');
    assert.equal(cards.length, 1);
    assert.deepEqual(cards[0].agreements, ['plan-7']);
    assert.equal(cards[0].number, '**** 4242');
  });

  it('a customer who does not tick the box saves nothing; the reconciler also saves a card it settles', async () => {
    const oneOff = await toStripe('cust-nosave');
    const params = sim.apiRequests('PostCheckoutSessions').at(-1)!.params as Record<string, unknown>;
    assert.equal(params.customer, undefined);
    assert.equal((params.payment_intent_data as Record<string, unknown>).setup_future_usage, undefined);
    assert.equal(await payOnStripe(oneOff), 'paid');
    assert.deepEqual(await cardsOf('cust-nosave'), []);

    // Paid on Stripe's page, then neither the return nor a notification: the reconciler settles it.
    sim.holdWebhooks();
    const left = await toStripe('cust-reconciled', { save: true });
    assert.ok(sim.pay(left.stripeSession, '5555555555554444').redirect);
    await eventually(
      async () => ((await stateOf(left.id)) === 'paid' ? true : undefined),
      15_000,
      'reconciled',
    );
    await sim.releaseWebhooks();
    await sim.settled();
    const cards = await cardsOf('cust-reconciled');
    assert.deepEqual(
      cards.map((c) => `${c.brand} ${c.number}`),
      ['Mastercard **** 4444'],
    );
  });

  it('a gateway that is not tokenizable never saves: straight to Stripe, no Customer, no card', async () => {
    const customers = sim.apiRequests('PostCustomers').length;
    const picked = await toStripe('cust-plain', { pg: 'stripe' });
    const params = sim.apiRequests('PostCheckoutSessions').at(-1)!.params as Record<string, unknown>;
    assert.equal(params.customer, undefined);
    assert.equal((params.payment_intent_data as Record<string, unknown>).setup_future_usage, undefined);
    assert.equal(await payOnStripe(picked), 'paid');
    assert.equal(sim.apiRequests('PostCustomers').length, customers);
    assert.deepEqual(await cardsOf('cust-plain'), []);
    const created = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send({
        type: 'e_commerce',
        amount: '5.000',
        currency_code: 'KWD',
        pg_codes: ['stripe'],
        customer_id: 'cust-plain',
        payment_type: 'save_card',
      });
    assert.equal(created.status, 400);
    assert.ok('payment_type' in (created.body as Record<string, unknown>));
  });

  it('auto-debit charges the saved card off-session: success, then capture and refund on its PaymentIntent', async () => {
    const { listed, stripeCustomer, paymentMethod } = await savedCard('cust-debit');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'cust-debit', amount: '12.340' });
    const res = await autoDebit(String(tx.session_id), listed.token).expect(200);
    assert.equal(res.body.result, 'success');
    assert.equal((res.body.token as CardJson).token, listed.token);
    assert.doesNotMatch(JSON.stringify(res.body), /pm_|cus_/);
    assert.equal(await stateOf(String(tx.session_id)), 'paid');
    const [attempt] = await attemptsOf(ds, String(tx.session_id));
    const charge = sim.apiRequests('PostPaymentIntents').at(-1)!;
    assert.equal(charge.idempotencyKey, `${attempt.reference_number}-charge`);
    assert.deepEqual(
      { ...(charge.params as Record<string, unknown>) },
      {
        amount: 12340,
        currency: 'kwd',
        customer: stripeCustomer,
        payment_method: paymentMethod,
        confirm: true,
        off_session: true,
        capture_method: 'automatic',
        metadata: { reference_number: attempt.reference_number },
      },
    );
    const refund = await d.operate({ session_id: tx.session_id, operation: 'refund', amount: '2.340' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal(sim.apiRequests('PostRefunds').length >= 1, true);

    // A gateway that authorizes: the charge holds the amount (manual capture) until captured.
    const held = await savedCard('cust-debit-auth', '4242424242424242', SAVING_AUTH);
    const authTx = await d.create({ pg_codes: [SAVING_AUTH], customer_id: 'cust-debit-auth' });
    const authorized = await autoDebit(String(authTx.session_id), held.listed.token).expect(200);
    assert.equal(authorized.body.result, 'success');
    assert.equal(await stateOf(String(authTx.session_id)), 'authorized');
    assert.equal(
      (sim.apiRequests('PostPaymentIntents').at(-1)!.params as Record<string, unknown>).capture_method,
      'manual',
    );
    const captured = await d.operate({ session_id: authTx.session_id, operation: 'capture' });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal(await stateOf(String(authTx.session_id)), 'captured');
  });

  it('auto-debit of a card the issuer now declines fails with the decline code; the transaction stays payable', async () => {
    const { listed, paymentMethod } = await savedCard('cust-declined');
    sim.declineCard(paymentMethod, 'insufficient_funds');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'cust-declined' });
    const res = await autoDebit(String(tx.session_id), listed.token).expect(200);
    assert.equal(res.body.result, 'failed');
    assert.equal((res.body.gateway_response as Record<string, unknown>).response_code, 'insufficient_funds');
    assert.equal(await stateOf(String(tx.session_id)), 'failed');
  });

  it('a card that needs authentication off-session is declined with authentication_required; one set up with 3D Secure pays', async () => {
    const always = await savedCard('cust-3ds', '4000002760003184');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'cust-3ds' });
    const res = await autoDebit(String(tx.session_id), always.listed.token).expect(200);
    assert.equal(res.body.result, 'failed');
    assert.equal(
      (res.body.gateway_response as Record<string, unknown>).response_code,
      'authentication_required',
    );

    const once = await savedCard('cust-3ds-once', '4000002500003155');
    const tx2 = await d.create({ pg_codes: [SAVING], customer_id: 'cust-3ds-once' });
    const ok = await autoDebit(String(tx2.session_id), once.listed.token).expect(200);
    assert.equal(ok.body.result, 'success');
  });

  it('Stripe answering too late: 503 pending, settled once from Stripe’s record, never charged twice', async () => {
    const { listed } = await savedCard('cust-slow');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'cust-slow' });
    const id = String(tx.session_id);
    // Stripe charges at once; its answer, and that of an immediate second ask, come after the
    // client's 1.5 s. Its notifications wait: only its API tells.
    sim.holdWebhooks();
    try {
      sim.delayAnswers(2500, 2);
      const unknown = await autoDebit(id, listed.token, 'slow-charge-1');
      assert.equal(unknown.status, 503, JSON.stringify(unknown.body));
      assert.equal(unknown.body.result, 'pending');
      const [pending] = await attemptsOf(ds, id);
      await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 15_000, 'reconciled');
      const attempts = await attemptsOf(ds, id);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].result, 'success');
      assert.equal(sim.intentsWithReference(pending.reference_number).length, 1, 'charged once');
      const again = await autoDebit(id, listed.token, 'slow-charge-2');
      assert.equal(again.status, 409, 'a paid transaction is not charged again');
      assert.equal(sim.intentsWithReference(pending.reference_number).length, 1);
    } finally {
      await sim.releaseWebhooks();
      await sim.settled();
    }
  });

  it('the payment page offers the saved cards of a Stripe gateway and charges one with the customer present, without a CVC', async () => {
    const { listed, paymentMethod } = await savedCard('cust-present', '4242424242424242');
    await savedCard('cust-present', '4000002760003184');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'cust-present' });
    const id = String(tx.session_id);
    const page = await openPaymentPage(t, `${t.url}/b/checkout/pay/${SAVING}?session_id=${id}`);
    const choices = savedCardChoices(page.html);
    assert.equal(choices.length, 2);
    assert.doesNotMatch(page.html, new RegExp(listed.token), 'never the token');
    assert.doesNotMatch(page.html, /name="saved_cvc"/);
    // Most recently used first: the 3-D Secure card was saved last (stripe-edges sends it to
    // authenticate); the Visa saved first needs nothing and is charged at once.
    const paid = await t
      .http()
      .post(page.path)
      .set('Cookie', page.cookie)
      .type('form')
      .send({ csrf_token: page.token, saved_card: choices[1] });
    assert.ok([200, 303].includes(paid.status));
    assert.equal(await stateOf(id), 'paid');
    const params = sim.apiRequests('PostPaymentIntents').at(-1)!.params as Record<string, unknown>;
    assert.equal(params.payment_method, paymentMethod);
    assert.equal(params.off_session, false, 'a customer-initiated charge');
  });

  it('no PaymentMethod or Customer id reaches a log line or a webhook', async () => {
    const ids = sim
      .apiRequests('PostCustomers')
      .map((r) => (r.response as { id?: string }).id)
      .filter((id): id is string => !!id);
    const methods = ids.flatMap((c) => sim.paymentMethodsOf(c).map((pm) => pm.id));
    assert.ok(ids.length > 3 && methods.length > 3);
    assert.ok(logLines.length > 100, 'the app logged at trace');
    const logs = logLines.join('\n');
    for (const id of [...ids, ...methods]) assert.ok(!logs.includes(id), `${id.slice(0, 4)}… is not logged`);
    const payloads = (await ds.query<{ payload: string }[]>('SELECT payload FROM events'))
      .map((e) => String(e.payload))
      .join('\n');
    for (const id of [...ids, ...methods]) assert.ok(!payloads.includes(id), 'nor in an event');
  });

  it('money audit: every charge Stripe took is one paid transaction, and reconciliation reports no mismatch', async () => {
    await sim.releaseWebhooks();
    await sim.settled();
    await assertMoneyAudit(t, ds, sim, since);
  });
});
