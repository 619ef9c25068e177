import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { GatewayAdapters } from '../../src/payments/adapters/gateway-adapters';
import { MpgsDriver } from '../../src/payments/drivers/mpgs/mpgs-driver';
import { MpgsSimulator } from '../providers/mpgs/mpgs-simulator';
import { seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import {
  assertMoneyAudit,
  attemptsOf,
  endMpgsSession,
  MPGS_CARDS,
  mpgsAttemptsOf,
  mpgsSessionOf,
  mpgsSettings,
  seedMpgsGateways,
} from './mpgs-helpers';

const INQUIRY = '/b/pbl/v2/inquiry/';

/**
 * Paying through MPGS Hosted Checkout (contract §20) end to end over HTTP, against the MPGS
 * simulator: the pick that claims and serves our page loading `checkout.min.js`, the customer's
 * return confirmed with RETRIEVE ORDER, notifications in any order and number, forged ones, amount
 * mismatches, capture/void/refund as transaction operations, inquiry and a gateway that times out
 * and is reconciled later. The browser round trip is mpgs-browser's.
 */
describe('MPGS driver: pay, return, notify, operate', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: MpgsSimulator;
  let ds: DataSource;
  let since: string;

  before(async () => {
    since = new Date(Date.now() - 1000).toISOString();
    sim = await new MpgsSimulator().start();
    t = await startApp({
      env: { PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
      overrides: [mpgsSettings(() => sim)],
    });
    s = await seedBasics(t);
    await seedMpgsGateways(t);
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
  const notifyUrl = (code = 'mpgs') => `${t.url}/b/checkout/v1/gateways/${code}/notify/`;

  /**
   * A transaction on `pg`, picked on the checkout page: our page that loads the simulator's
   * `checkout.min.js` for the attempt's session.
   */
  async function pick(pg = 'mpgs', overrides: Record<string, unknown> = {}) {
    const tx = await d.create({ pg_codes: [pg], ...overrides });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/${pg}?session_id=${id}`);
    assert.equal(res.status, 200);
    const page = await res.text();
    const [attempt] = await attemptsOf(ds, id);
    const session = mpgsSessionOf(attempt);
    assert.match(session.session_id, /^SESSION/);
    assert.match(page, new RegExp(`data-session-id="${session.session_id}"`));
    return { id, reference: attempt.reference_number, session: session.session_id, page, res };
  }

  /** The customer comes back through `url`: the answer, not followed. */
  const comeBack = (url: string) => get(url);
  /** Pays on the simulated hosted page: where the payer is sent next (our return URL). */
  const pay = (
    session: string,
    card: { number: string; expiry: string; csc?: string } = MPGS_CARDS.approved,
  ) => sim.payOnHostedPage(session, card);
  /** Cancel on the simulated hosted page: where the payer is sent (our cancel URL). */
  async function cancelOnHostedPage(session: string): Promise<string> {
    const res = await fetch(`${sim.url}/checkout/pay/${session}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'action=cancel',
      redirect: 'manual',
    });
    assert.equal(res.status, 303);
    return res.headers.get('location')!;
  }
  /**
   * The attempt's checkout session is over (expired at MPGS, and past what the driver stored of it):
   * no session that may still pay is left for the reconciler to keep asking about.
   */
  const close = (reference: string) => endMpgsSession(ds, sim, reference);

  it('picking MPGS claims the transaction and serves our page for a session of the stored amount, under a strict CSP', async () => {
    const { id, reference, session, page, res } = await pick();
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)' (\S+);/.exec(csp);
    assert.ok(nonce, csp);
    assert.equal(nonce[2], sim.url, 'the provider’s origin and nothing else');
    assert.doesNotMatch(csp, /\*|unsafe-inline|unsafe-eval/);
    assert.match(csp, /default-src 'none'/);
    assert.equal(
      [...page.matchAll(/<script\b([^>]*)>/g)].length,
      2,
      'the provider’s script and ours, nothing more',
    );
    assert.match(page, new RegExp(`<script src="${sim.url}/static/checkout/checkout.min.js"`));
    assert.match(page, new RegExp(`<script nonce="${nonce[1].replace(/[+/]/g, '\\$&')}">`));
    assert.match(page, /Checkout\.configure\(\{ session: \{ id: session \} \}\)/);
    assert.match(page, /Checkout\.showPaymentPage\(\)/);

    const initiated = sim.requestsFor('INITIATE_CHECKOUT').at(-1)!;
    const body = initiated.body as {
      order: Record<string, string>;
      interaction: Record<string, string>;
    };
    assert.equal(initiated.apiVersion, 100);
    assert.equal(initiated.user, `merchant.${sim.merchantId}`);
    assert.equal(body.order.id, reference);
    assert.equal(body.order.amount, '86.000');
    assert.equal(body.order.currency, 'KWD');
    assert.equal(body.order.notificationUrl, notifyUrl());
    assert.equal(body.interaction.operation, 'PURCHASE');
    assert.equal(body.interaction.returnUrl, `${t.url}/b/checkout/v1/gateways/mpgs/return/?ref=${reference}`);
    assert.equal(
      body.interaction.cancelUrl,
      `${t.url}/b/checkout/v1/gateways/mpgs/return/?ref=${reference}&cancel=1`,
    );
    const [attempt] = await attemptsOf(ds, id);
    assert.equal(mpgsSessionOf(attempt).success_indicator, sim.successIndicatorOf(session));
    const held = await ds.query<{ attempt_in_flight: string }[]>(
      'SELECT attempt_in_flight FROM transactions WHERE session_id = ?',
      [id],
    );
    assert.equal(held[0].attempt_in_flight, reference);
    // Picking it again while the session is open serves the same session again.
    const again = await get(`/b/checkout/pay/mpgs?session_id=${id}`);
    assert.equal(again.status, 200);
    assert.match(await again.text(), new RegExp(`data-session-id="${session}"`));
    assert.equal((await attemptsOf(ds, id)).length, 1);
    await close(reference);
  });

  it('a session older than MPGS usually keeps one is not handed out again: picking MPGS again starts a new one, the old one watched', async () => {
    const { id, reference, session } = await pick();
    const [attempt] = await attemptsOf(ds, id);
    const provider = JSON.parse(attempt.provider_data ?? '{}') as Record<string, string>;
    assert.ok(Date.parse(provider.resume_until) > Date.now());
    assert.ok(Date.parse(provider.payable_until) > Date.parse(provider.resume_until));
    await ds.query('UPDATE payment_attempts SET provider_data = ? WHERE reference_number = ?', [
      JSON.stringify({ ...provider, resume_until: new Date(Date.now() - 1000).toISOString() }),
      reference,
    ]);
    const again = await get(`/b/checkout/pay/mpgs?session_id=${id}`);
    assert.equal(again.status, 200);
    assert.doesNotMatch(await again.text(), new RegExp(session));
    const attempts = await mpgsAttemptsOf(ds, id);
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0].settled_at, null, 'MPGS cannot end the old session: it is watched, not closed');
    assert.notEqual(attempts[0].left_at, null);
    assert.equal(attempts[0].attempt_in_flight, attempts[1].reference_number);
    await close(reference);
    await close(attempts[1].reference_number);
  });

  it('pays: the return with a matching resultIndicator settles once; notifications after it change nothing', async () => {
    sim.notifier.controls.mode = 'hold';
    try {
      const { id, reference, session } = await pick();
      const back = await comeBack(pay(session));
      assert.equal(back.status, 200);
      assert.match(await back.text(), new RegExp(reference));
      assert.equal(await stateOf(id), 'paid');
      assert.ok(sim.requestsFor('RETRIEVE_ORDER').some((r) => r.path.endsWith(`/order/${reference}`)));
      sim.notifier.controls.duplicates = 2;
      sim.notifier.releaseHeld({ reverse: true });
      await sim.notifier.settled();
      const deliveries = sim.notifier.deliveries.filter((x) => x.body.includes(reference));
      assert.equal(deliveries.length, 3);
      for (const delivery of deliveries) assert.equal(delivery.status, 200);
      assert.deepEqual(await eventsOf(id), ['created', 'paid']);
      const [attempt] = await attemptsOf(ds, id);
      assert.equal(attempt.result, 'success');
      assert.equal(attempt.response_code, 'APPROVED');
    } finally {
      sim.notifier.controls = { ...sim.notifier.controls, mode: 'send', duplicates: 0 };
    }
  });

  it('a resultIndicator that does not match still settles by the order MPGS keeps', async () => {
    sim.notifier.controls.mode = 'drop';
    try {
      const { id, reference, session } = await pick();
      const url = new URL(pay(session));
      url.searchParams.set('resultIndicator', 'not-the-success-indicator');
      const back = await comeBack(url.toString());
      assert.equal(back.status, 200);
      assert.match(await back.text(), new RegExp(reference));
      assert.equal(await stateOf(id), 'paid');
    } finally {
      sim.notifier.controls.mode = 'send';
    }
  });

  it('a notification before the return settles it; the return then only shows the outcome', async () => {
    const { id, reference, session } = await pick();
    const returnUrl = pay(session);
    await sim.notifier.settled();
    assert.equal(await stateOf(id), 'paid');
    const back = await comeBack(returnUrl);
    assert.equal(back.status, 200);
    assert.match(await back.text(), new RegExp(reference));
    assert.deepEqual(await eventsOf(id), ['created', 'paid']);
  });

  it('a declined card: failed at once, but not final while the payer may retry on the page; final once the session is over', async () => {
    const { id, reference, session } = await pick();
    assert.equal(
      pay(session, MPGS_CARDS.declined),
      `${sim.url}/checkout/pay/${session}`,
      'still on MPGS’s page',
    );
    await sim.notifier.settled();
    assert.equal(await stateOf(id), 'failed');
    assert.deepEqual(await eventsOf(id), ['created', 'failed']);
    let [attempt] = await mpgsAttemptsOf(ds, id);
    assert.equal(attempt.settled_at, null, 'watched: the session may still take the payment');
    // The session ends: the decline is final, and nothing more is said to the merchant.
    await close(reference);
    const res = await t.http().post(INQUIRY).set('Authorization', s.apiKey).send({ session_id: id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await eventually(
      async () => {
        [attempt] = await mpgsAttemptsOf(ds, id);
        return attempt.settled_at !== null ? true : undefined;
      },
      15_000,
      'the attempt closed',
    );
    // Closed with MPGS's decline code and no transition (the merchant was told `failed` already).
    assert.notEqual(attempt.result, 'success');
    assert.equal(attempt.response_code, 'DECLINED');
    assert.equal(await stateOf(id), 'failed');
    assert.deepEqual(await eventsOf(id), ['created', 'failed']);
  });

  it('cancel on the hosted page: back on the checkout page, still payable; picking MPGS again goes back to the same session', async () => {
    const { id, reference, session } = await pick();
    const back = await comeBack(await cancelOnHostedPage(session));
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await mpgsAttemptsOf(ds, id);
    assert.equal(attempt.settled_at, null, 'MPGS keeps the session: the attempt is watched');
    const again = await get(`/b/checkout/pay/mpgs?session_id=${id}`);
    assert.equal(again.status, 200);
    assert.match(await again.text(), new RegExp(`data-session-id="${session}"`));
    assert.equal((await attemptsOf(ds, id)).length, 1);
    await close(reference);
  });

  it('a forged notification (wrong or missing secret, or a gateway without one) is refused with 400 and changes nothing', async () => {
    sim.notifier.controls.mode = 'hold';
    try {
      const { id, reference, session } = await pick();
      const returnUrl = pay(session);
      const body = sim.transactionJson(reference, '1');
      const wrong = await sim.notifier.deliverRaw(notifyUrl(), body, 'not-the-secret');
      assert.equal(wrong.status, 400);
      const missing = await fetch(notifyUrl(), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      assert.equal(missing.status, 400);
      const noSecret = await sim.notifier.deliverRaw(
        notifyUrl('mpgs-nosecret'),
        body,
        sim.notificationSecret,
      );
      assert.equal(noSecret.status, 400, 'a gateway without notification_secret verifies nothing');
      assert.equal(await stateOf(id), 'created');
      const [attempt] = await attemptsOf(ds, id);
      assert.equal(attempt.result, 'pending');
      // the real one then settles it
      const real = await sim.notifier.deliverRaw(notifyUrl(), body, sim.notificationSecret);
      assert.equal(real.status, 200);
      assert.equal(await stateOf(id), 'paid');
      assert.equal((await comeBack(returnUrl)).status, 200);
      assert.deepEqual(await eventsOf(id), ['created', 'paid']);
    } finally {
      sim.notifier.controls.mode = 'send';
      sim.notifier.releaseHeld();
      await sim.notifier.settled();
    }
  });

  it('an order for another amount never pays the attempt, by return or notification: left until MPGS says the right amount', async () => {
    sim.notifier.controls.mode = 'hold';
    try {
      const { id, reference, session } = await pick();
      const returnUrl = pay(session);
      sim.setOrderState(reference, { amount: '1.000' });
      const back = await comeBack(returnUrl);
      assert.equal(back.status, 200);
      assert.match(await back.text(), /data-testid="confirming"/);
      sim.notifier.releaseHeld();
      await sim.notifier.settled();
      assert.equal(await stateOf(id), 'created');
      const [attempt] = await attemptsOf(ds, id);
      assert.equal(attempt.result, 'pending');
      assert.equal(attempt.settled_at, null);
      // The bank corrects its record: the attempt is settled from it.
      sim.setOrderState(reference, { amount: '86.000' });
      await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 15_000, 'paid');
    } finally {
      sim.notifier.controls.mode = 'send';
    }
  });

  it('authorize, then capture part of it as an MPGS transaction operation', async () => {
    const { id, reference, session } = await pick('mpgs-auth');
    const initiated = sim.requestsFor('INITIATE_CHECKOUT').at(-1)!;
    assert.equal(
      (initiated.body as { interaction: { operation: string } }).interaction.operation,
      'AUTHORIZE',
    );
    await comeBack(pay(session));
    assert.equal(await stateOf(id), 'authorized');
    const res = await d.operate({ session_id: id, operation: 'capture', amount: '50.000' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'captured');
    const capture = sim.requestsFor('CAPTURE').at(-1)!;
    assert.match(capture.path, new RegExp(`/order/${reference}/transaction/[0-9a-f]{32}$`));
    assert.deepEqual((capture.body as { transaction: unknown }).transaction, {
      amount: '50.000',
      currency: 'KWD',
    });
    assert.equal(sim.order(reference)!.totalCapturedAmount.toFixed(), '50');
  });

  it('authorize, then capture all of it', async () => {
    const { id, reference, session } = await pick('mpgs-auth');
    await comeBack(pay(session));
    const res = await d.operate({ session_id: id, operation: 'capture' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'captured');
    assert.equal(sim.order(reference)!.status, 'CAPTURED');
    assert.equal(sim.order(reference)!.totalCapturedAmount.toFixed(), '86');
  });

  it('an operation sent again with the same operation key names the same MPGS transaction: done once', async () => {
    const { reference, session } = await pick();
    await comeBack(pay(session));
    const gateway = (await t.app.get(GatewaysService).findByCode('mpgs'))!;
    const settings = await t.app.get(GatewayAdapters).bind(gateway);
    const refund = {
      gateway,
      settings: settings!.settings,
      operation: 'refund' as const,
      referenceNumber: reference,
      amount: '5.000',
      currencyCode: 'KWD',
      partial: true,
      operationKey: 'op-42',
    };
    const driver = t.app.get(MpgsDriver);
    assert.deepEqual(await driver.followUp(refund), { result: 'success' });
    assert.deepEqual(await driver.followUp(refund), { result: 'success' });
    const refunds = sim.requestsFor('REFUND').filter((r) => r.path.includes(`/order/${reference}/`));
    assert.equal(refunds.length, 2);
    assert.equal(refunds[0].path, refunds[1].path, 'the same transaction id both times');
    assert.equal(sim.order(reference)!.totalRefundedAmount.toFixed(), '5');
  });

  it('MPGS does not answer an operation in time: 503 pending, the transaction unchanged', async () => {
    const { id, session } = await pick();
    await comeBack(pay(session));
    sim.delayAnswers(3000, 1);
    try {
      const res = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.result, 'pending');
      assert.equal(await stateOf(id), 'paid');
    } finally {
      sim.delayAnswers(0, 0);
    }
  });

  it('authorize, then void the authorization', async () => {
    const { id, reference, session } = await pick('mpgs-auth');
    await comeBack(pay(session));
    const res = await d.operate({ session_id: id, operation: 'void' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'voided');
    assert.equal(sim.order(reference)!.status, 'CANCELLED');
    const voided = sim.requestsFor('VOID').at(-1)!;
    assert.deepEqual((voided.body as { transaction: unknown }).transaction, { targetTransactionId: '1' });
  });

  it('refunds part, then the rest', async () => {
    const { id, reference, session } = await pick();
    await comeBack(pay(session));
    const part = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(part.status, 200, JSON.stringify(part.body));
    assert.equal(part.body.state, 'paid', 'a partial refund leaves the state');
    const rest = await d.operate({ session_id: id, operation: 'refund', amount: '80.000' });
    assert.equal(rest.status, 200, JSON.stringify(rest.body));
    assert.equal(rest.body.state, 'refunded');
    const refunds = sim.requestsFor('REFUND').filter((r) => r.path.includes(`/order/${reference}/`));
    assert.deepEqual(
      refunds.map((r) => (r.body as { transaction: { amount: string } }).transaction.amount),
      ['6.000', '80.000'],
    );
    assert.equal(sim.order(reference)!.status, 'REFUNDED');
  });

  it('a refund MPGS refuses is refused (400 failed, with MPGS’s explanation and no secret) and changes nothing', async () => {
    const { id, reference, session } = await pick();
    await comeBack(pay(session));
    // Voided in Merchant Administration meanwhile: MPGS refuses to refund the order.
    sim.setOrderState(reference, { status: 'CANCELLED' });
    const res = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(res.status, 400);
    assert.equal(res.body.result, 'failed');
    assert.match(
      String(res.body.detail),
      /MPGS refused the refund: Order in status CANCELLED cannot be refunded/,
    );
    assert.doesNotMatch(JSON.stringify(res.body), new RegExp(sim.apiPassword));
    assert.equal(await stateOf(id), 'paid');
  });

  it('inquiry asks MPGS about a customer who paid but never came back', async () => {
    sim.notifier.controls.mode = 'drop';
    try {
      const { id, session } = await pick();
      pay(session);
      const res = await t.http().post(INQUIRY).set('Authorization', s.apiKey).send({ session_id: id });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(await stateOf(id), 'paid');
    } finally {
      sim.notifier.controls.mode = 'send';
    }
  });

  it('MPGS unreachable when the customer picks it: 503 page, the transaction stays payable', async () => {
    const tx = await d.create({ pg_codes: ['mpgs-down'] });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/mpgs-down?session_id=${id}`);
    assert.equal(res.status, 503);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await attemptsOf(ds, id);
    assert.notEqual(attempt.settled_at, null);
  });

  it('MPGS too slow on the return: the page that reloads itself, then the reconciler settles it', async () => {
    sim.notifier.controls.mode = 'drop';
    let release = () => {};
    try {
      const { id, reference, session } = await pick();
      const returnUrl = pay(session);
      // MPGS stops answering order lookups (sockets open) while the customer comes back ...
      release = sim.hang('RETRIEVE_ORDER');
      const back = await comeBack(returnUrl);
      assert.equal(back.status, 200);
      assert.equal(back.headers.get('refresh'), '3');
      const page = await back.text();
      assert.match(page, /data-testid="confirming"/);
      assert.match(page, new RegExp(reference));
      assert.equal(await stateOf(id), 'created');
      // ... then answers again: the reconciler's lookup (which waits longer) settles it.
      release();
      await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 15_000, 'paid');
      const reload = await comeBack(returnUrl);
      assert.equal(reload.status, 200);
      assert.equal(reload.headers.get('refresh'), null);
      assert.deepEqual(await eventsOf(id), ['created', 'paid']);
    } finally {
      release();
      sim.notifier.controls.mode = 'send';
    }
  });

  it('money audit: every MPGS charge is one paid transaction, and reconciliation reports no mismatch', async () => {
    await sim.notifier.settled();
    await assertMoneyAudit(t, ds, sim, since);
  });
});
