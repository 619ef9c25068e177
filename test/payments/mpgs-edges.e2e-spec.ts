import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { MpgsSimulator } from '../providers/mpgs/mpgs-simulator';
import { seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import {
  assertMoneyAudit,
  endMpgsSession,
  MPGS_CARDS,
  mpgsAttemptsOf,
  mpgsSessionOf,
  mpgsSettings,
  seedMpgsGateways,
} from './mpgs-helpers';

const INQUIRY = '/b/pbl/v2/inquiry/';

/**
 * Money at MPGS's edges (contract §20.1), end to end over HTTP against the simulator as
 * MPGS documents it: a decline the payer retries on the Hosted Payment Page, cancel then pay again,
 * 3-D Secure abandoned, a lookup that hangs while the customer waits (the shared 10-second
 * deadline, with the gateway's timeout_ms at 2000), operations whose answers are lost or wrong
 * (MPGS does not promise what a repeated transaction id answers), and MPGS's error answers. Ends
 * with the money audit.
 */
describe('MPGS at the edges: retries, cancel, 3-D Secure, repeated ids, deadlines', () => {
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
      overrides: [mpgsSettings(() => sim, 2000)],
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
  const returnUrl = (reference: string, code = 'mpgs') =>
    `${t.url}/b/checkout/v1/gateways/${code}/return/?ref=${reference}`;
  const inquiry = (id: string) =>
    t.http().post(INQUIRY).set('Authorization', s.apiKey).send({ session_id: id });
  const close = (reference: string) => endMpgsSession(ds, sim, reference);

  /** A transaction on `pg` picked on the checkout page: our page for the attempt's MPGS session. */
  async function pick(pg = 'mpgs') {
    const tx = await d.create({ pg_codes: [pg] });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/${pg}?session_id=${id}`);
    assert.equal(res.status, 200);
    const [attempt] = await mpgsAttemptsOf(ds, id);
    return { id, reference: attempt.reference_number, session: mpgsSessionOf(attempt).session_id };
  }

  /** Picks the gateway again: the page served, and the session it hands over. */
  async function pickAgain(id: string, pg = 'mpgs') {
    const res = await get(`/b/checkout/pay/${pg}?session_id=${id}`);
    const page = await res.text();
    return { status: res.status, session: /data-session-id="([^"]+)"/.exec(page)?.[1] ?? null };
  }

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

  it('declined, then the payer retries on MPGS’s page and pays: the transaction ends paid, one paid webhook', async () => {
    const { id, reference, session } = await pick();
    assert.equal(sim.payOnHostedPage(session, MPGS_CARDS.declined), `${sim.url}/checkout/pay/${session}`);
    await sim.notifier.settled();
    await eventually(async () => ((await stateOf(id)) === 'failed' ? true : undefined), 10_000, 'failed');
    const [declined] = await mpgsAttemptsOf(ds, id);
    assert.equal(declined.settled_at, null, 'the decline is not final: MPGS’s page takes another try');
    // The payer is still on MPGS's page and tries another card.
    const back = await get(sim.payOnHostedPage(session, MPGS_CARDS.approved));
    assert.equal(back.status, 200);
    await sim.notifier.settled();
    // The notification, or the watcher asking MPGS, records the payment on the left attempt.
    await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 25_000, 'paid');
    const events = await eventsOf(id);
    assert.deepEqual(events, ['created', 'failed', 'paid']);
    const [attempt] = await mpgsAttemptsOf(ds, id);
    assert.equal(attempt.result, 'success');
    assert.equal(attempt.reference_number, reference);
    assert.equal(sim.order(reference)?.status, 'CAPTURED');
  });

  it('cancel, come back, pick MPGS again: never 409, the same session, and it pays', async () => {
    const { id, reference, session } = await pick();
    const back = await get(await cancelOnHostedPage(session));
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(await stateOf(id), 'created');
    const again = await pickAgain(id);
    assert.equal(again.status, 200);
    assert.equal(again.session, session, 'MPGS keeps the session: the customer goes back to it');
    assert.equal((await get(sim.payOnHostedPage(session, MPGS_CARDS.approved))).status, 200);
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await eventsOf(id), ['created', 'paid']);
    assert.equal((await mpgsAttemptsOf(ds, id)).length, 1);
    assert.equal(sim.order(reference)?.status, 'CAPTURED');
  });

  it('cancel, then the payer goes back to MPGS’s page (the same session) and pays there: recorded paid', async () => {
    const { id, session } = await pick();
    assert.equal((await get(await cancelOnHostedPage(session))).status, 303);
    sim.payOnHostedPage(session, MPGS_CARDS.approved); // never comes back to us
    await sim.notifier.settled();
    await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 25_000, 'paid');
    assert.deepEqual(await eventsOf(id), ['created', 'paid']);
  });

  it('3-D Secure abandoned: the return is "left" (payable again, not "being confirmed"), watched; picking again pays on the same session', async () => {
    const { id, reference, session } = await pick();
    sim.authenticateOnHostedPage(session, MPGS_CARDS.approved);
    assert.equal(sim.order(reference)?.status, 'AUTHENTICATION_INITIATED');
    const back = await get(returnUrl(reference));
    assert.equal(back.status, 303, 'not the page that reloads itself forever');
    assert.equal(back.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await mpgsAttemptsOf(ds, id);
    assert.equal(attempt.settled_at, null);
    assert.notEqual(attempt.left_at, null);
    const again = await pickAgain(id);
    assert.equal(again.status, 200);
    assert.equal(again.session, session);
    assert.equal((await get(sim.payOnHostedPage(session, MPGS_CARDS.approved))).status, 200);
    assert.equal(await stateOf(id), 'paid');
  });

  it('3-D Secure abandoned and the session over: the attempt is closed, nothing charged, the transaction payable', async () => {
    const { id, reference, session } = await pick();
    sim.authenticateOnHostedPage(session, MPGS_CARDS.approved, 'failed');
    assert.equal((await get(returnUrl(reference))).status, 303);
    await close(reference);
    assert.equal((await inquiry(id)).status, 200);
    await eventually(
      async () => ((await mpgsAttemptsOf(ds, id))[0].settled_at !== null ? true : undefined),
      15_000,
      'the attempt closed once its session is over',
    );
    assert.equal(await stateOf(id), 'created');
    assert.deepEqual(await eventsOf(id), ['created']);
    const again = await pickAgain(id);
    assert.equal(again.status, 200);
    assert.notEqual(again.session, session, 'a new session');
    await close((await mpgsAttemptsOf(ds, id))[1].reference_number);
  });

  it('an order lookup that hangs (timeout_ms 2000): picking MPGS again answers within the 10-second promise, never 409', async () => {
    const { id, reference } = await pick();
    const release = sim.hang('RETRIEVE_ORDER');
    let answer: { status: number; session: string | null };
    const started = Date.now();
    try {
      answer = await pickAgain(id);
    } finally {
      release();
    }
    const took = Date.now() - started;
    assert.ok(took < 10_000, `answered after ${took} ms`);
    assert.notEqual(answer.status, 409);
    assert.ok([200, 503].includes(answer.status), `answered ${answer.status}`);
    for (const attempt of await mpgsAttemptsOf(ds, id)) await close(attempt.reference_number);
    assert.ok(reference);
  });

  it('a capture whose answer is lost: pending, then decided from the order (MPGS had done it), never sent again', async () => {
    const { id, reference, session } = await pick('mpgs-auth');
    assert.equal((await get(sim.payOnHostedPage(session, MPGS_CARDS.approved))).status, 200);
    assert.equal(await stateOf(id), 'authorized');
    sim.loseAnswers(1, 'CAPTURE');
    const res = await d.operate({ session_id: id, operation: 'capture', amount: '40.000' });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.result, 'pending');
    await eventually(
      async () => {
        await inquiry(id);
        return (await stateOf(id)) === 'captured' ? true : undefined;
      },
      15_000,
      'captured',
    );
    const order = sim.order(reference)!;
    assert.equal(order.transactions.filter((x) => x.type === 'CAPTURE').length, 1);
    assert.equal(order.totalCapturedAmount.toFixed(), '40');
    assert.equal(
      sim.requestsFor('CAPTURE').filter((r) => r.path.includes(`/order/${reference}/`)).length,
      1,
      'the repeat asked the order instead of sending the capture again',
    );
  });

  it('a refund answered for another amount is not a success: pending, then decided from the order', async () => {
    const { id, reference, session } = await pick();
    assert.equal((await get(sim.payOnHostedPage(session, MPGS_CARDS.approved))).status, 200);
    sim.alterNextAnswer('REFUND', (answer) => {
      (answer.transaction as Record<string, unknown>).amount = '86';
    });
    const res = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.result, 'pending');
    await eventually(
      async () => {
        await inquiry(id);
        const tx = await d.get(id);
        return tx.refunded_amount === '6.000' ? true : undefined;
      },
      15_000,
      'refunded 6.000',
    );
    assert.equal(sim.order(reference)!.totalRefundedAmount.toFixed(), '6');
    assert.equal(sim.requestsFor('REFUND').filter((r) => r.path.includes(`/order/${reference}/`)).length, 1);
  });

  it('MPGS refusing our credentials on an inquiry: the merchant gets 502 with MPGS’s error, never our own 401', async () => {
    sim.notifier.controls.mode = 'drop';
    try {
      const { id, session } = await pick();
      sim.payOnHostedPage(session, MPGS_CARDS.approved); // paid; the customer never comes back
      sim.failNext(1, { status: 401, cause: 'INVALID_REQUEST', explanation: 'Invalid credentials.' });
      const refused = await inquiry(id);
      assert.equal(refused.status, 502, JSON.stringify(refused.body));
      assert.match(JSON.stringify(refused.body.provider_error), /Invalid credentials/);
      assert.doesNotMatch(JSON.stringify(refused.body), new RegExp(sim.apiPassword));
      sim.failNext(1, { status: 429, cause: 'REQUEST_REJECTED', explanation: 'Too many requests' });
      assert.equal((await inquiry(id)).status, 503);
      const ok = await inquiry(id);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(await stateOf(id), 'paid');
    } finally {
      sim.notifier.controls.mode = 'send';
    }
  });

  it('money audit: every MPGS charge is one paid transaction, and reconciliation reports no mismatch', async () => {
    await sim.notifier.settled();
    await assertMoneyAudit(t, ds, sim, since);
  });
});
