import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { KnetSimulator } from '../providers/knet/knet-simulator';
import { adminAuth, seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import {
  CANCEL,
  DECLINE,
  knetAttemptsOf,
  knetMoneyAudit,
  knetSettings,
  PAY,
  pageForm,
  providerOf,
  QUICK_TERMINAL,
  seedKnetGateways,
} from './knet-helpers';

const INQUIRY = '/b/pbl/v2/inquiry/';
const DRIVERS = '/b/checkout/v1/admin/gateway-drivers/';

/**
 * KNET at its edges (contract §20.1; docs/gateways/knet.md), over HTTP against a simulator
 * that behaves as KNET's manual (K-064) and public kits say, not as our driver would like: the
 * 19-character `transid`, `INITIATED` while the customer is on KNET's page, an answer the driver
 * does not know, KNET's error answers to an inquiry, the errorURL link while the page stays payable,
 * the result posted as bare ciphertext, KNET's reversal when our `REDIRECT=` reply is late, the raw
 * result post and KNET's Payment ID kept with the attempt, the page's time limit. Ends with the money
 * audit: every payment KNET kept is one paid transaction, and reconciliation counts no mismatch.
 */
describe('KNET at the edges: what KNET does that a kind simulator would not', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: KnetSimulator;
  let ds: DataSource;
  let since: Date;

  before(async () => {
    since = new Date(Date.now() - 1000);
    sim = await KnetSimulator.start();
    t = await startApp({
      env: { PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
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
  });

  const base = () => `${t.url}/b/checkout/v1/gateways`;
  const get = (url: string) => fetch(new URL(url, t.url), { redirect: 'manual' });
  const stateOf = async (id: string) => String((await d.get(id)).state);
  const events = async (id: string) => (await adminEvents(t, id)).map((e) => e.event);
  const inquiries = (track: string) =>
    sim.requests.filter((r) => r.endpoint === 'inquiry' && r.fields.trackid === track);
  const inquire = (id: string) =>
    t.http().post(INQUIRY).set('Authorization', s.apiKey).send({ session_id: id });

  /** Picked on the checkout page, and on KNET's page: the attempt's reference and KNET's PaymentID. */
  async function onKnetPage(pg = 'knet') {
    const tx = await d.create({ pg_codes: [pg] });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/${pg}?session_id=${id}`);
    assert.equal(res.status, 303);
    const atKnet = await fetch(res.headers.get('location')!, { redirect: 'manual' });
    assert.equal(atKnet.status, 302);
    const pageUrl = atKnet.headers.get('location')!;
    const paymentId = new URL(pageUrl).searchParams.get('PaymentID')!;
    const [attempt] = await knetAttemptsOf(ds, id);
    return { id, pageUrl, paymentId, reference: attempt.reference_number };
  }

  /** The customer submits (or cancels) KNET's page: where KNET then sends the browser (not followed). */
  const submit = (paymentId: string, fields: Record<string, string>) =>
    fetch(`${sim.url}/kpg/paymentpage.htm`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: pageForm(paymentId, fields),
      redirect: 'manual',
    });

  /** Submits with the test card, then the browser follows KNET to our receipt URL. */
  async function payOnPage(paymentId: string): Promise<Response> {
    const back = await submit(paymentId, PAY);
    assert.equal(back.status, 302, 'KNET read our REDIRECT= line');
    return get(back.headers.get('location')!);
  }

  /** Cancels on KNET's page and comes back: nothing is left open for the reconciler. */
  async function leave(paymentId: string) {
    const back = await submit(paymentId, CANCEL);
    assert.equal(back.status, 302);
    await get(back.headers.get('location')!);
  }

  async function attemptOf(id: string, index = 0) {
    return (await knetAttemptsOf(ds, id))[index];
  }

  it('the track id is the reference number, at most 19 characters, and inquiry asks by it as transid', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    assert.match(reference, /^[A-Z0-9]{1,19}$/, 'K-064 §3.5.4: Trans ID is at most 19 characters');
    const init = sim.requests.filter((r) => r.endpoint === 'init').at(-1)!;
    assert.equal(init.fields.trackid, reference, 'KNET’s track id is our reference_number');
    const receipt = await payOnPage(paymentId);
    assert.equal(receipt.status, 200);
    assert.equal(await stateOf(id), 'paid');
    assert.ok(inquiries(reference).length >= 1, 'KNET was asked');
    for (const asked of inquiries(reference)) {
      assert.equal(asked.fields.transid, reference);
      assert.equal(asked.fields.udf5, 'TrackID');
    }
    assert.deepEqual(await events(id), ['created', 'paid']);
  });

  it('the result page shows KNET’s Payment ID and the reference (K-064 §8 point 4)', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    const receipt = await payOnPage(paymentId);
    assert.equal(await stateOf(id), 'paid');
    const html = await receipt.text();
    assert.match(html, new RegExp(reference));
    assert.match(html, new RegExp(paymentId), 'KNET’s Payment ID on the result page');
  });

  it('keeps the raw result post and KNET’s Payment ID with the attempt (K-064 §5, §8 point 6)', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    await payOnPage(paymentId);
    assert.equal(await stateOf(id), 'paid');
    const provider = providerOf(await attemptOf(id));
    assert.equal(provider.payment_id, paymentId);
    const post = JSON.parse(provider.result_post) as Record<string, string>;
    assert.equal(post.result, 'CAPTURED');
    assert.equal(post.trackid, reference);
    assert.equal(post.paymentid, paymentId);
    assert.equal(post.amt, '86.000');
    assert.match(post.tranid, /^\d{15}$/);
    assert.match(post.ref, /^\d{12}$/);
  });

  it('a verified decline is final (KNET’s page ends on its result post), kept with its raw post', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    const back = await submit(paymentId, DECLINE);
    assert.equal(back.status, 302);
    assert.equal(await stateOf(id), 'failed');
    const attempt = await attemptOf(id);
    assert.equal(attempt.result, 'declined');
    assert.notEqual(attempt.settled_at, null);
    const provider = providerOf(attempt);
    assert.equal(provider.payment_id, paymentId);
    assert.equal((JSON.parse(provider.result_post) as Record<string, string>).result, 'NOT CAPTURED');
    // KNET's page for it is over: it cannot take the payment any more.
    const page = await fetch(`${sim.url}/kpg/paymentpage.htm?PaymentID=${paymentId}`);
    assert.match(await page.text(), /IPAY0100055/);
    assert.equal(sim.paymentByTrack(reference)!.state, 'NOT CAPTURED');
    assert.deepEqual(await events(id), ['created', 'failed']);
  });

  it('INITIATED while the customer is on KNET’s page is not a decline: nothing settles, then it pays', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    for (const form of ['INITIATED', 'FAILURE(INITIATED)']) {
      sim.initiatedResult = form;
      const before = inquiries(reference).length;
      const res = await inquire(id);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(inquiries(reference).length, before + 1, 'KNET was asked');
      assert.equal(await stateOf(id), 'created', `${form} is no decline`);
      const attempt = await attemptOf(id);
      assert.equal(attempt.result, 'pending');
      assert.equal(attempt.settled_at, null);
    }
    sim.initiatedResult = 'INITIATED';
    await payOnPage(paymentId);
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await events(id), ['created', 'paid']);
  });

  it('a customer slow on KNET’s page is not written off by the reconciler: the late payment is recorded paid', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    // The reconciler takes attempts older than 10 s: it asks, KNET says INITIATED, the page is open.
    await eventually(
      () => Promise.resolve(inquiries(reference).length > 0 ? true : undefined),
      30_000,
      'asked',
    );
    await sleep(1500);
    assert.equal(await stateOf(id), 'created');
    assert.equal((await attemptOf(id)).settled_at, null);
    await payOnPage(paymentId);
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await events(id), ['created', 'paid']);
  });

  it('an inquiry answer the driver does not know is unknown: never a decline, never our 500', async () => {
    const { id, paymentId } = await onKnetPage();
    sim.initiatedResult = 'PROCESSING';
    try {
      const res = await inquire(id);
      assert.notEqual(res.status, 500, JSON.stringify(res.body));
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.ok('provider_error' in (res.body as object), JSON.stringify(res.body));
      assert.equal(await stateOf(id), 'created');
      assert.equal((await attemptOf(id)).result, 'pending');
    } finally {
      sim.initiatedResult = 'INITIATED';
    }
    await leave(paymentId);
  });

  it('KNET’s error answers to an inquiry are the provider’s error (503/502 with provider_error), never our 500', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    for (const [how, code, status] of [
      ['error', 'IPAY0200018', 503], // "Problem occurred while getting transaction details": try again
      ['error', 'IPAY0100015', 502], // "Invalid tranportal password": KNET refused us
      ['http500', undefined, 503],
    ] as const) {
      sim.failNext('inquiry', 1, how, { code, trackId: reference });
      const res = await inquire(id);
      assert.equal(res.status, status, `${how} ${code ?? ''}: ${JSON.stringify(res.body)}`);
      assert.ok('provider_error' in (res.body as object), JSON.stringify(res.body));
      assert.equal(await stateOf(id), 'created');
      assert.equal((await attemptOf(id)).result, 'pending');
    }
    await leave(paymentId);
  });

  it('KNET’s errorURL link while its page is open does not end the attempt: payable, and the page pays later', async () => {
    const { id, reference, pageUrl, paymentId } = await onKnetPage();
    // A stranger's link first: unauthenticated, it proves nothing.
    const forged = await get(
      `${base()}/knet/return/?Error=IPAY0100048&ErrorText=Cancelled&trackid=${reference}`,
    );
    assert.equal(forged.status, 303, 'back on the checkout page');
    assert.equal(forged.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(await stateOf(id), 'created');
    // The customer's first tab shows KNET's page; a second tab sends them to our errorURL.
    assert.equal((await fetch(pageUrl)).status, 200);
    const secondTab = await fetch(pageUrl, { redirect: 'manual' });
    assert.equal(secondTab.status, 302);
    const link = new URL(secondTab.headers.get('location')!);
    assert.equal(`${link.origin}${link.pathname}`, `${base()}/knet/return/`);
    assert.equal(link.searchParams.get('Error'), 'IPAY0100040');
    assert.equal(link.searchParams.get('trackid'), reference);
    const back = await get(link.toString());
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(await stateOf(id), 'created', 'payable again');
    const attempt = await attemptOf(id);
    assert.equal(attempt.result, 'pending');
    assert.equal(attempt.settled_at, null, 'still watched: KNET’s page may take the payment');
    assert.notEqual(attempt.left_at, null);
    // The first tab is still KNET's page, and pays.
    const receipt = await payOnPage(paymentId);
    assert.equal(receipt.status, 200);
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await events(id), ['created', 'paid']);
  });

  it('the result posted as bare ciphertext (as KNET’s kit reads it) is accepted and answered REDIRECT=', async () => {
    sim.resultPost = 'bare';
    try {
      const { id, reference, paymentId } = await onKnetPage();
      const back = await submit(paymentId, PAY);
      assert.equal(back.status, 302, 'KNET read our REDIRECT= line: not reversed');
      const [post] = sim.paymentByTrack(reference)!.notifications;
      assert.match(post.body, /^[0-9A-F]+$/, 'the body is the trandata hex alone');
      assert.equal(post.status, 200);
      assert.equal(post.reply, `REDIRECT=${base()}/knet/return/?trackid=${reference}`);
      assert.equal(sim.paymentByTrack(reference)!.state, 'CAPTURED');
      // The same bytes again, to see the reply's type: one text/plain line.
      const again = await fetch(`${base()}/knet/notify/`, {
        method: 'POST',
        headers: { 'Content-Type': post.contentType },
        body: post.body,
      });
      assert.equal(again.status, 200);
      assert.match(again.headers.get('content-type')!, /^text\/plain/);
      assert.equal(await again.text(), `REDIRECT=${base()}/knet/return/?trackid=${reference}`);
      assert.equal((await get(back.headers.get('location')!)).status, 200);
      assert.equal(await stateOf(id), 'paid');
      assert.equal(JSON.parse(providerOf(await attemptOf(id)).result_post).result, 'CAPTURED');
    } finally {
      sim.resultPost = 'form';
    }
  });

  it('bare ciphertext sent as text/plain or application/octet-stream is accepted too', async () => {
    sim.resultPost = 'bare';
    try {
      for (const type of ['text/plain', 'application/octet-stream']) {
        sim.barePostContentType = type;
        const { id, reference, paymentId } = await onKnetPage();
        const back = await submit(paymentId, PAY);
        const [post] = sim.paymentByTrack(reference)!.notifications;
        assert.equal(post.status, 200, `${type}: ${post.reply}`);
        assert.equal(post.reply, `REDIRECT=${base()}/knet/return/?trackid=${reference}`);
        assert.equal(back.status, 302);
        assert.equal(sim.paymentByTrack(reference)!.state, 'CAPTURED', `${type}: not reversed`);
        await get(back.headers.get('location')!);
        assert.equal(await stateOf(id), 'paid');
      }
    } finally {
      sim.resultPost = 'form';
      sim.barePostContentType = 'application/x-www-form-urlencoded';
    }
  });

  it('our REDIRECT= reply does not wait on a slow KNET inquiry, so KNET does not reverse the payment (§9.2.1)', async () => {
    const { id, reference, paymentId } = await onKnetPage();
    sim.notifyTimeoutMs = 1500;
    sim.delay('inquiry', 3000);
    try {
      const back = await submit(paymentId, PAY);
      assert.equal(back.status, 302, 'KNET had our reply in time');
      assert.equal(sim.paymentByTrack(reference)!.state, 'CAPTURED', 'not reversed');
    } finally {
      sim.delay('inquiry', 0);
      sim.notifyTimeoutMs = 10_000;
    }
    await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 30_000, 'paid');
    assert.deepEqual(await events(id), ['created', 'paid']);
  });

  it('page_timeout_minutes (default 30) is a knet setting, and sets payable_until of the attempt', async () => {
    const drivers = await t.http().get(DRIVERS).set('Authorization', adminAuth());
    assert.equal(drivers.status, 200);
    const knet = (drivers.body as { pg: string; settings: Record<string, unknown>[] }[]).find(
      (driver) => driver.pg === 'knet',
    )!;
    const setting = knet.settings.find((one) => one.name === 'page_timeout_minutes');
    assert.deepEqual(
      { required: setting?.required, secret: setting?.secret, default: setting?.default },
      { required: false, secret: false, default: 30 },
    );
    for (const [pg, ms] of [
      ['knet', 30 * 60_000],
      ['knet-quick', QUICK_TERMINAL.pageLimitMs],
    ] as const) {
      const { id, paymentId } = await onKnetPage(pg);
      const provider = providerOf(await attemptOf(id));
      assert.equal(Date.parse(provider.payable_until) - Date.parse(provider.started_at), ms, pg);
      await leave(paymentId);
    }
  });

  it('KNET’s page time limit: the page cannot pay after it, and the attempt then ends with nothing charged', async () => {
    const { id, reference, paymentId } = await onKnetPage('knet-quick');
    await sleep(QUICK_TERMINAL.pageLimitMs + 500);
    // KNET refuses the late submit (IPAY0100042) and sends the customer to our errorURL.
    const late = await submit(paymentId, PAY);
    assert.equal(late.status, 302);
    const link = new URL(late.headers.get('location')!);
    assert.equal(link.searchParams.get('Error'), 'IPAY0100042');
    assert.equal(link.searchParams.get('trackid'), reference);
    assert.equal(sim.paymentByTrack(reference)!.state, 'INITIALIZED', 'KNET’s record: nothing captured');
    const back = await get(link.toString());
    assert.notEqual(back.status, 500);
    assert.notEqual(await stateOf(id), 'failed', 'INITIATED is no decline');
    // The return (or, at the latest, the reconciler) ends the attempt: nothing charged, payable.
    await eventually(
      async () => ((await attemptOf(id, 0)).settled_at !== null ? true : undefined),
      30_000,
      'attempt ended',
    );
    assert.equal(await stateOf(id), 'created');
    assert.deepEqual(await events(id), ['created']);
    const again = await get(`/b/checkout/pay/knet-quick?session_id=${id}`);
    assert.equal(again.status, 303, 'payable again');
    const next = new URL(
      (await fetch(again.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!,
    ).searchParams.get('PaymentID')!;
    await payOnPage(next);
    assert.equal(await stateOf(id), 'paid');
  });

  it('picking KNET again while its page is open: no 409, a new page, the old one watched', async () => {
    const { id, reference } = await onKnetPage();
    const again = await get(`/b/checkout/pay/knet?session_id=${id}`);
    assert.equal(again.status, 303, JSON.stringify(again.headers.get('location')));
    const attempts = await knetAttemptsOf(ds, id);
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0].reference_number, reference);
    assert.equal(attempts[0].settled_at, null, 'KNET cannot end its page: the first attempt is watched');
    assert.notEqual(attempts[0].left_at, null);
    const atKnet = await fetch(again.headers.get('location')!, { redirect: 'manual' });
    const second = new URL(atKnet.headers.get('location')!).searchParams.get('PaymentID')!;
    await payOnPage(second);
    assert.equal(await stateOf(id), 'paid');
  });

  it('money audit: every payment KNET kept is exactly one paid transaction; reconciliation: 0 mismatches', async () => {
    await knetMoneyAudit(t, sim, since);
  });
});
