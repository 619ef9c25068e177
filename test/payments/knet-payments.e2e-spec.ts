import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { KnetSimulator } from '../providers/knet/knet-simulator';
import { seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import {
  CANCEL,
  DECLINE,
  knetAttemptsOf,
  knetMoneyAudit,
  knetSettings,
  NO_REFUNDS_TERMINAL,
  PAY,
  pageForm,
  seedKnetGateways,
} from './knet-helpers';
import { CapturedLogs } from '../setup/captured-logs';

const INQUIRY = '/b/pbl/v2/inquiry/';

/**
 * Paying through KNET (contract §20; docs/gateways/knet.md) end to end over HTTP, against the KNET
 * simulator: the pick that claims and 303s to KNET with `trandata`, the result KNET posts server to
 * server to our notify URL and the `REDIRECT=` line it gets back, repeated and forged posts, amount
 * mismatches, decline, cancel, KNET's errorURL, refunds, operations KNET does not have, inquiry, and
 * an inquiry that times out on the return and is reconciled later. The browser round trip is
 * knet-browser's. Every log line is collected: no secret, `trandata` or payment URL in any of them.
 */
describe('KNET driver: pay, result post, return, operate', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: KnetSimulator;
  let ds: DataSource;
  let since: Date;
  const trandatas: string[] = [];
  const logCapture = new CapturedLogs();
  const logs = logCapture.lines;

  before(async () => {
    logCapture.start();
    since = new Date(Date.now() - 1000);
    sim = await KnetSimulator.start();
    t = await startApp({
      env: { LOG_LEVEL: 'debug', PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
      overrides: [knetSettings(() => sim)],
    });
    s = await seedBasics(t);
    await seedKnetGateways(t, sim);
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(async () => {
    await sim?.close();
    await t?.close();
    logCapture.stop();
  });

  const base = () => `${t.url}/b/checkout/v1/gateways`;
  const get = (url: string) => fetch(new URL(url, t.url), { redirect: 'manual' });
  const stateOf = async (id: string) => String((await d.get(id)).state);
  const events = async (id: string) => (await adminEvents(t, id)).map((e) => e.event);

  /**
   * A transaction on `pg`, picked on the checkout page: the 303 to KNET, then KNET's own redirect
   * to its hosted page (what the browser does), which names KNET's PaymentID.
   */
  async function pick(pg = 'knet', overrides: Record<string, unknown> = {}) {
    const tx = await d.create({ pg_codes: [pg], ...overrides });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/${pg}?session_id=${id}`);
    assert.equal(res.status, 303);
    const location = res.headers.get('location')!;
    trandatas.push(new URL(location).searchParams.get('trandata') ?? '');
    const [attempt] = await knetAttemptsOf(ds, id);
    const atKnet = await fetch(location, { redirect: 'manual' });
    return { id, location, atKnet, reference: attempt.reference_number };
  }

  /** Picked and on KNET's page: the simulator's payment. */
  async function onKnetPage(pg = 'knet', overrides: Record<string, unknown> = {}) {
    const picked = await pick(pg, overrides);
    assert.equal(picked.atKnet.status, 302);
    const paymentId = new URL(picked.atKnet.headers.get('location')!).searchParams.get('PaymentID')!;
    return { ...picked, paymentId };
  }

  /**
   * The customer submits KNET's page: KNET posts the result to our notify URL, reads our
   * `REDIRECT=` line and sends the browser there (302), which is answered here, not followed.
   */
  const submit = (paymentId: string, fields: Record<string, string>) =>
    fetch(`${sim.url}/kpg/paymentpage.htm`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: pageForm(paymentId, fields),
      redirect: 'manual',
    });

  /** The customer picks KNET again for `id` (a new attempt): KNET's PaymentID of the new page. */
  async function repick(id: string): Promise<string> {
    const again = await get(`/b/checkout/pay/knet?session_id=${id}`);
    assert.equal(again.status, 303);
    const atKnet = await fetch(again.headers.get('location')!, { redirect: 'manual' });
    return new URL(atKnet.headers.get('location')!).searchParams.get('PaymentID')!;
  }

  /**
   * The customer cancels on KNET's page and comes back: the attempt ends, so the reconciler has no
   * open page left to keep asking about while later tests count on the simulator's answers.
   */
  async function leave(paymentId: string) {
    const back = await submit(paymentId, CANCEL);
    assert.equal(back.status, 302);
    assert.equal((await get(back.headers.get('location')!)).status, 303);
  }

  /** A paid KNET transaction: submitted, and the customer back on our receipt URL. */
  async function paid(pg = 'knet') {
    const picked = await onKnetPage(pg);
    const back = await submit(picked.paymentId, PAY);
    assert.equal(back.status, 302);
    assert.equal((await get(back.headers.get('location')!)).status, 200);
    assert.equal(await stateOf(picked.id), 'paid');
    return picked;
  }

  it('picking KNET claims the transaction and sends the customer to KNET with trandata for the stored amount', async () => {
    const { id, location, reference, atKnet } = await pick();
    const url = new URL(location);
    assert.equal(`${url.origin}${url.pathname}`, sim.paymentUrl);
    assert.equal(url.searchParams.get('param'), 'paymentInit');
    assert.match(url.searchParams.get('trandata')!, /^[0-9a-f]+$/i);
    assert.equal(atKnet.status, 302, 'KNET accepted the initialization');
    const init = sim.requests.filter((r) => r.endpoint === 'init').at(-1)!;
    assert.equal(init.fields.trackid, reference);
    assert.equal(init.fields.amt, '86.000');
    assert.equal(init.fields.currencycode, '414');
    assert.equal(init.fields.action, '1');
    assert.equal(init.fields.responseURL, `${base()}/knet/notify/`);
    assert.equal(init.fields.errorURL, `${base()}/knet/return/`, 'no query string: KNET refuses one');
    const [attempt] = await knetAttemptsOf(ds, id);
    const provider = JSON.parse(attempt.provider_data ?? '{}') as Record<string, string>;
    assert.deepEqual(Object.keys(provider).sort(), ['amount', 'payable_until', 'started_at', 'track_id']);
    assert.equal(provider.track_id, reference);
    assert.ok(!attempt.provider_data!.includes(url.searchParams.get('trandata')!), 'the URL is not kept');
    const held = await ds.query<{ attempt_in_flight: string }[]>(
      'SELECT attempt_in_flight FROM transactions WHERE session_id = ?',
      [id],
    );
    assert.equal(held[0].attempt_in_flight, reference);
    // KNET's page cannot be expired: picking again starts a new page (never a 409, contract §20.1)
    // and the first attempt stays watched while its page may still take the payment.
    const again = await get(`/b/checkout/pay/knet?session_id=${id}`);
    assert.equal(again.status, 303);
    const attempts = await knetAttemptsOf(ds, id);
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0].settled_at, null);
    const first = new URL(atKnet.headers.get('location')!).searchParams.get('PaymentID')!;
    const second = new URL(
      (await fetch(again.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!,
    ).searchParams.get('PaymentID')!;
    const canceled = await submit(first, CANCEL);
    assert.equal(canceled.status, 302);
    assert.notEqual((await get(canceled.headers.get('location')!)).status, 500);
    await leave(second);
  });

  it('pays: the result post gets the REDIRECT= line; the return confirms it by inquiry and settles once', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    const back = await submit(paymentId, PAY);
    const receipt = `${base()}/knet/return/?trackid=${reference}`;
    assert.equal(back.status, 302, 'KNET got our answer and sends the customer on');
    assert.equal(back.headers.get('location'), receipt);
    const [post] = sim.paymentByTrack(reference)!.notifications;
    assert.equal(post.status, 200);
    assert.equal(post.reply, `REDIRECT=${receipt}`);
    assert.equal(sim.paymentByTrack(reference)!.state, 'CAPTURED', 'not reversed');
    // A CAPTURED post is no proof by itself: KNET's own record (tranPipe inquiry) confirms it.
    const asked = sim.requests.filter((r) => r.endpoint === 'inquiry' && r.fields.trackid === reference);
    assert.ok(asked.length >= 1, 'KNET was asked');
    const page = await get(receipt);
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(reference));
    assert.equal(await stateOf(id), 'paid');
    // KNET posts again, byte for byte: the same answer, nothing more happens.
    const repeat = await sim.resendNotification(paymentId);
    assert.equal(repeat.status, 200);
    assert.equal(repeat.reply, `REDIRECT=${receipt}`);
    assert.equal((await get(receipt)).status, 200);
    assert.deepEqual(await events(id), ['created', 'paid']);
    const [attempt] = await knetAttemptsOf(ds, id);
    assert.equal(attempt.result, 'success');
    assert.equal(attempt.response_code, 'CAPTURED');
    const provider = JSON.parse(attempt.provider_data ?? '{}') as Record<string, string>;
    assert.equal(provider.payment_id, paymentId);
  });

  it('the reply is the one text/plain line KNET expects; HOST TIMEOUT is left to inquiry', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    // A post as KNET sends it, read back from the simulator, then sent again to see the headers.
    const { body } = await sim.postToResponseUrl(paymentId, { fields: { result: 'HOST TIMEOUT' } });
    const res = await fetch(`${base()}/knet/notify/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain/);
    assert.equal(await res.text(), `REDIRECT=${base()}/knet/return/?trackid=${reference}`);
    assert.equal(await stateOf(id), 'created');
    await leave(paymentId);
  });

  it('NOT CAPTURED: the post settles it declined once, however often it comes; payable again', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    const back = await submit(paymentId, DECLINE);
    assert.equal(back.status, 302);
    assert.equal(await stateOf(id), 'failed', 'a decline is believed from the verified post');
    for (let i = 0; i < 2; i++) assert.equal((await sim.resendNotification(paymentId)).status, 200);
    const page = await get(back.headers.get('location')!);
    assert.equal(page.status, 200);
    assert.deepEqual(await events(id), ['created', 'failed']);
    const [attempt] = await knetAttemptsOf(ds, id);
    assert.equal(attempt.result, 'declined');
    assert.equal(attempt.response_code, 'NOT CAPTURED');
    assert.equal(attempt.reference_number, reference);
  });

  it('a declined transaction is paid on a second attempt, with a new track id (K-064 §8 point 2)', async () => {
    const tx = await d.create({ pg_codes: ['knet'] });
    const id = String(tx.session_id);
    const first = await get(`/b/checkout/pay/knet?session_id=${id}`);
    const firstPage = await fetch(first.headers.get('location')!, { redirect: 'manual' });
    const firstPayment = new URL(firstPage.headers.get('location')!).searchParams.get('PaymentID')!;
    await get((await submit(firstPayment, DECLINE)).headers.get('location')!);
    assert.equal(await stateOf(id), 'failed');
    const second = await get(`/b/checkout/pay/knet?session_id=${id}`);
    assert.equal(second.status, 303);
    const secondPage = await fetch(second.headers.get('location')!, { redirect: 'manual' });
    const secondPayment = new URL(secondPage.headers.get('location')!).searchParams.get('PaymentID')!;
    await get((await submit(secondPayment, PAY)).headers.get('location')!);
    assert.equal(await stateOf(id), 'paid');
    const attempts = await knetAttemptsOf(ds, id);
    assert.deepEqual(
      attempts.map((a) => a.result),
      ['declined', 'success'],
    );
  });

  it('forged or undecryptable posts are refused with the same 400, and nothing changes', async () => {
    const { id, paymentId } = await onKnetPage();
    const wrongKey = await sim.postToResponseUrl(paymentId, {
      fields: { result: 'CAPTURED' },
      resourceKey: 'ANOTHERRESOURCEK',
    });
    const tampered = await sim.postToResponseUrl(paymentId, { fields: { result: 'CAPTURED' }, tamper: true });
    const garbage = await sim.postToResponseUrl(paymentId, { raw: 'paymentid=1&trackid=2&trandata=ZZ' });
    const empty = await sim.postToResponseUrl(paymentId, { raw: '' });
    const bodies = new Set<string>();
    for (const post of [wrongKey, tampered, garbage, empty]) {
      assert.equal(post.status, 400, post.reply);
      bodies.add(post.reply);
    }
    assert.equal(bodies.size, 1, 'one answer for every reason: no decryption oracle');
    // another terminal's key decrypts nothing of ours either
    const other = await sim.postToResponseUrl(paymentId, { resourceKey: NO_REFUNDS_TERMINAL.resourceKey });
    assert.equal(other.status, 400);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await knetAttemptsOf(ds, id);
    assert.equal(attempt.result, 'pending');
    assert.equal(attempt.settled_at, null);
    await leave(paymentId);
  });

  it('KNET’s plain-text error post proves nothing: answered with REDIRECT=, nothing changes', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    const post = await sim.postToResponseUrl(paymentId, {
      raw: `Error=IPAY0100249&ErrorText=Down&trackid=${reference}&paymentid=${paymentId}`,
    });
    assert.equal(post.status, 200);
    assert.equal(post.reply, `REDIRECT=${base()}/knet/return/?trackid=${reference}`);
    assert.equal(await stateOf(id), 'created');
    await leave(paymentId);
  });

  it('a verified result for another amount never pays: left to inquiry, which refuses the amount', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    // KNET charged 1.000 on this track (its record and its post say so); we asked 86.000.
    const payment = sim.paymentByTrack(reference)!;
    payment.amount = '1.000';
    sim.setState(reference, 'CAPTURED');
    try {
      const post = await sim.postToResponseUrl(paymentId);
      assert.equal(post.status, 200, post.reply);
      assert.equal(await stateOf(id), 'created');
      const page = await get(`${base()}/knet/return/?trackid=${reference}`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /data-testid="confirming"/);
      assert.equal(await stateOf(id), 'created');
      const [attempt] = await knetAttemptsOf(ds, id);
      assert.equal(attempt.result, 'pending');
    } finally {
      // KNET's record for the amount we sent says nothing was paid; a person settles it.
      payment.amount = '86.000';
      sim.setState(reference, 'REVERSED');
    }
  });

  it('cancel on KNET’s page: back on the checkout page, payable again', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    const back = await submit(paymentId, CANCEL);
    assert.equal(back.status, 302);
    const location = back.headers.get('location')!;
    assert.equal(location, `${base()}/knet/return/?trackid=${reference}&cancel=1`);
    const page = await get(location);
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(await stateOf(id), 'created');
    const [attempt] = await knetAttemptsOf(ds, id);
    assert.notEqual(attempt.settled_at, null);
    await leave(await repick(id));
    assert.equal((await knetAttemptsOf(ds, id)).length, 2);
  });

  it('KNET’s errorURL (it could not start the payment): payable again, the attempt watched until the page limit', async () => {
    sim.failNext('init', 1, 'error');
    const { id, reference, atKnet } = await pick();
    assert.equal(atKnet.status, 302);
    const location = atKnet.headers.get('location')!;
    const errorUrl = new URL(location);
    assert.equal(`${errorUrl.origin}${errorUrl.pathname}`, `${base()}/knet/return/`);
    assert.equal(errorUrl.searchParams.get('Error'), 'IPAY0100038');
    assert.equal(errorUrl.searchParams.get('trackid'), reference);
    // The link is unauthenticated and the browser still holds the payment URL (which KNET may take
    // on a reload): nothing ends the attempt before KNET's page limit, but the customer may go on.
    const page = await get(location);
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), `/b/checkout/txn/${id}`);
    const [attempt] = await knetAttemptsOf(ds, id);
    assert.equal(attempt.result, 'pending');
    assert.equal(attempt.settled_at, null);
    assert.equal(await stateOf(id), 'created');
    await leave(await repick(id));
  });

  it('a return naming no attempt of ours is a 404', async () => {
    assert.equal((await get(`${base()}/knet/return/?trackid=0000000000`)).status, 404);
    assert.equal((await get(`${base()}/knet/return/?Error=IPAY0100006`)).status, 404);
  });

  it('refunds part, then the rest, at KNET (tranPipe action 2)', async () => {
    const { id, reference } = await paid();
    const part = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(part.status, 200, JSON.stringify(part.body));
    assert.equal(part.body.state, 'paid', 'a partial refund leaves the state');
    const rest = await d.operate({ session_id: id, operation: 'refund' });
    assert.equal(rest.status, 200, JSON.stringify(rest.body));
    assert.equal(rest.body.state, 'refunded');
    assert.deepEqual(
      sim.paymentByTrack(reference)!.refunds.map((r) => r.amount),
      ['6.000', '80.000'],
    );
  });

  it('a terminal without API refunds: refused with KNET’s error text, nothing changes', async () => {
    const { id, reference } = await paid('knet-norefund');
    const res = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(res.status, 400);
    assert.equal(res.body.result, 'failed');
    assert.match(String(res.body.detail), /IPAY0100033 Terminal action not enabled/);
    assert.equal(await stateOf(id), 'paid');
    assert.equal(sim.paymentByTrack(reference)!.refunds.length, 0);
  });

  it('a refund whose answer is lost: 503 pending, never repeated by us', async () => {
    const { id, reference } = await paid();
    sim.failNext('refund', 1, 'drop_after');
    const res = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.result, 'pending');
    assert.equal(await stateOf(id), 'paid');
    assert.equal(sim.paymentByTrack(reference)!.refunds.length, 1, 'KNET did it once');
    const refundsSent = () =>
      sim.requests.filter((r) => r.endpoint === 'refund' && r.fields.trackid === reference).length;
    assert.equal(refundsSent(), 1);
    // The reconciler (every 1 s here) may ask again once the call's lease is over (2 s): KNET cannot
    // deduplicate a refund, so the driver never sends it again; it stays pending for a person.
    await sleep(4500);
    assert.equal(refundsSent(), 1, 'the reconciler did not refund a second time');
    const [operation] = await ds.query<{ state: string }[]>(
      `SELECT o.state FROM provider_operations o JOIN transactions t ON t.id = o.transaction_id
       WHERE t.session_id = ?`,
      [id],
    );
    assert.equal(operation.state, 'pending');
    assert.equal(await stateOf(id), 'paid');
    const again = await d.operate({ session_id: id, operation: 'refund', amount: '6.000' });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(refundsSent(), 1);
  });

  it('capture and void do not exist at KNET: refused with 400 before KNET is called', async () => {
    const { id } = await paid();
    const calls = sim.requests.length;
    for (const operation of ['capture', 'void']) {
      const res = await d.operate({ session_id: id, operation });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        detail: `Gateway "knet" (knet) cannot ${operation}.`,
        operation,
        result: 'failed',
      });
    }
    assert.equal(sim.requests.length, calls);
    assert.equal(await stateOf(id), 'paid');
  });

  it('a customer who paid but never came back: the result post, confirmed by KNET’s record, settles it', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    const back = await submit(paymentId, PAY);
    assert.equal(back.status, 302); // not followed: the customer closed the browser
    assert.equal(await stateOf(id), 'paid');
    assert.ok(
      sim.requests.some((r) => r.endpoint === 'inquiry' && r.fields.trackid === reference),
      'KNET’s record was asked',
    );
    const res = await t.http().post(INQUIRY).set('Authorization', s.apiKey).send({ session_id: id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await events(id), ['created', 'paid']);
  });

  it('KNET too slow on the return: the page that reloads itself, then the reconciler settles it', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    // tranPipe is slow from before the result post: our REDIRECT= reply must not wait for it.
    sim.delay('inquiry', 6000);
    let receipt: string;
    try {
      const back = await submit(paymentId, PAY);
      assert.equal(back.status, 302, 'KNET had our reply');
      receipt = back.headers.get('location')!;
      const page = await get(receipt);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('refresh'), '3');
      const html = await page.text();
      assert.match(html, /data-testid="confirming"/);
      assert.match(html, new RegExp(reference));
      assert.equal(await stateOf(id), 'created');
      // The reconciler takes attempts older than 10 s; the inquiry then takes 6 s.
      await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 30_000, 'paid');
    } finally {
      sim.delay('inquiry', 0);
    }
    const reload = await get(receipt);
    assert.equal(reload.status, 200);
    assert.equal(reload.headers.get('refresh'), null);
    assert.deepEqual(await events(id), ['created', 'paid']);
  });

  it('reversed by KNET (our answer never reached it): the reconciler settles it declined, never paid', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    sim.failNext('submit', 1, 'no_notification');
    const back = await submit(paymentId, PAY);
    assert.equal(back.status, 200, 'KNET shows its error page');
    assert.equal(sim.paymentByTrack(reference)!.state, 'REVERSED');
    await eventually(async () => ((await stateOf(id)) === 'failed' ? true : undefined), 30_000, 'failed');
    const [attempt] = await knetAttemptsOf(ds, id);
    assert.equal(attempt.result, 'declined');
    assert.equal(attempt.response_code, 'REVERSED');
  });

  it('money audit: every payment KNET kept is exactly one paid transaction; reconciliation: 0 mismatches', async () => {
    await knetMoneyAudit(t, sim, since);
  });

  it('no log line holds the password, the resource key, trandata or the payment URL', () => {
    const text = logs.join('');
    assert.ok(logs.length > 20, `lines were logged (${logs.length})`);
    for (const secret of [sim.terminal.password, sim.terminal.resourceKey, NO_REFUNDS_TERMINAL.password]) {
      assert.ok(!text.includes(secret), 'no secret in the logs');
    }
    for (const trandata of trandatas.filter(Boolean)) {
      assert.ok(!text.toLowerCase().includes(trandata.slice(0, 32).toLowerCase()), 'no trandata in the logs');
    }
    assert.ok(!text.includes('param=paymentInit'), 'no payment URL in the logs');
  });
});
