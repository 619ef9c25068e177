// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  KnetAnswerError,
  KnetClient,
  KnetClientOptions,
  KnetRequestError,
  KnetTerminal,
  KnetUnverifiedError,
} from '../../../src/payments/providers/knet/knet-client';
import { ProviderTransportError } from '../../../src/payments/providers/provider-http';
import { KnetSimulator } from './knet-simulator';
import { KnetTestMerchant } from './knet-merchant';

/** Everything the client logs, to check that no secret ever shows. */
const logged: string[] = [];
const captureLogger: KnetClientOptions['logger'] = {
  log: (message: unknown, ...rest: unknown[]) => void logged.push(JSON.stringify([message, ...rest])),
  warn: (message: unknown, ...rest: unknown[]) => void logged.push(JSON.stringify([message, ...rest])),
};

/** A new track id: 19 characters, KNET's `transid` limit (K-064 §3.5.4), as our reference numbers. */
function newTrack(): string {
  return randomBytes(10).toString('hex').toUpperCase().slice(0, 19);
}

describe('KNET client against the KNET simulator', () => {
  let sim: KnetSimulator;
  let merchant: KnetTestMerchant;
  let terminal: KnetTerminal;
  let client: KnetClient;

  before(async () => {
    sim = await KnetSimulator.start();
    terminal = {
      tranportalId: sim.terminal.tranportalId,
      tranportalPassword: sim.terminal.password,
      resourceKey: sim.terminal.resourceKey,
      paymentUrl: sim.paymentUrl,
      inquiryUrl: sim.inquiryUrl,
    };
    client = new KnetClient(terminal, { logger: captureLogger });
    merchant = await KnetTestMerchant.start(() => client);
  });
  after(async () => {
    await merchant?.close();
    await sim?.close();
  });
  beforeEach(() => {
    merchant.replyMode = 'ok';
  });

  /** Initializes a payment for a new track through the merchant; returns the hosted page URL. */
  async function startPayment(amount = '20.55'): Promise<{ trackId: string; pageUrl: string }> {
    const trackId = newTrack();
    merchant.expected.set(trackId, { trackId, amount });
    const toKnet = await fetch(`${merchant.url}/pay/?track=${trackId}`, { redirect: 'manual' });
    assert.equal(toKnet.status, 303);
    const init = await fetch(toKnet.headers.get('location') as string, { redirect: 'manual' });
    assert.equal(init.status, 302);
    const pageUrl = init.headers.get('location') as string;
    assert.match(pageUrl, /\/kpg\/paymentpage\.htm\?PaymentID=\d{18}$/);
    return { trackId, pageUrl };
  }

  /** Submits the hosted page's form as a browser would; returns where the customer is sent. */
  async function submitPage(pageUrl: string, form: Record<string, string>): Promise<Response> {
    const paymentId = new URL(pageUrl).searchParams.get('PaymentID') as string;
    return fetch(`${sim.url}/kpg/paymentpage.htm`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ PaymentID: paymentId, action: 'submit', ...form }).toString(),
    });
  }

  const TEST_CARD = { bank: 'KNET1', cardN: '8888880000000001', expmm: '09', expyy: '2030', pin: '1234' };

  async function pay(amount = '20.55'): Promise<{ trackId: string; paymentId: string }> {
    const { trackId, pageUrl } = await startPayment(amount);
    const done = await submitPage(pageUrl, TEST_CARD);
    assert.equal(done.status, 302);
    return { trackId, paymentId: new URL(pageUrl).searchParams.get('PaymentID') as string };
  }

  it('initializes a payment with the documented fields, encrypted', async () => {
    const { trackId } = await startPayment('20.55');
    const init = sim.requests.filter((r) => r.endpoint === 'init').at(-1)!;
    assert.equal(init.fields.param, 'paymentInit');
    assert.equal(init.fields.tranportalId, terminal.tranportalId);
    assert.match(init.fields.trandata, /^[0-9a-f]+$/);
    assert.equal(init.fields.id, terminal.tranportalId);
    assert.equal(init.fields.password, terminal.tranportalPassword);
    assert.equal(init.fields.action, '1');
    assert.equal(init.fields.langid, 'EN');
    assert.equal(init.fields.currencycode, '414');
    assert.equal(init.fields.amt, '20.550');
    assert.equal(init.fields.trackid, trackId);
    assert.equal(init.fields.responseURL, merchant.responseUrl);
    assert.equal(init.fields.errorURL, merchant.errorUrl);
    assert.equal(init.fields.udf1, 'order 1');
    assert.equal(sim.paymentByTrack(trackId)?.state, 'INITIALIZED');
  });

  it('refuses to build a request KNET would refuse, naming the field only', () => {
    const base = {
      trackId: newTrack(),
      amount: '1',
      responseUrl: merchant.responseUrl,
      errorUrl: merchant.errorUrl,
    };
    assert.throws(() => client.paymentRedirect({ ...base, amount: '1.0005' }), KnetRequestError);
    assert.throws(() => client.paymentRedirect({ ...base, trackId: 'has-dash' }), KnetRequestError);
    assert.throws(
      () => client.paymentRedirect({ ...base, responseUrl: `${merchant.responseUrl}?x=1` }),
      KnetRequestError,
    );
    assert.throws(() => client.paymentRedirect({ ...base, udfs: { udf2: 'a&b' } }), KnetRequestError);
  });

  for (const [name, change, code] of [
    ['a wrong tranportal password', { tranportalPassword: 'wrong' }, 'IPAY0100015'],
    ['an unknown tranportal id', { tranportalId: '999999' }, 'IPAY0100006'],
    ['a wrong resource key', { resourceKey: 'WRONGRESOURCEKEY' }, 'IPAY0100176'],
  ] as const) {
    it(`sends the customer to the errorURL with KNET's error for ${name}`, async () => {
      const wrong = new KnetClient({ ...terminal, ...change }, { logger: captureLogger });
      const redirect = wrong.paymentRedirect({
        trackId: newTrack(),
        amount: '5',
        responseUrl: merchant.responseUrl,
        errorUrl: merchant.errorUrl,
      });
      const init = await fetch(redirect.url, { redirect: 'manual' });
      assert.equal(init.status, 302);
      const target = new URL(init.headers.get('location') as string);
      assert.equal(`${target.origin}${target.pathname}`, merchant.errorUrl);
      assert.equal(target.searchParams.get('Error'), code);
      assert.ok(target.searchParams.get('ErrorText'));
    });
  }

  it('verifies a captured result posted to the responseURL and follows REDIRECT=', async () => {
    const { trackId, pageUrl } = await startPayment('20.55');
    const done = await submitPage(pageUrl, TEST_CARD);
    assert.equal(done.status, 302);
    assert.equal(done.headers.get('location'), `${merchant.url}/receipt/?track=${trackId}`);
    const verdict = merchant.verdicts.at(-1)!;
    assert.equal(verdict.outcome, 'captured');
    assert.equal(verdict.message.trackId, trackId);
    assert.equal(verdict.message.amount, '20.550');
    assert.match(verdict.message.paymentId, /^\d{18}$/);
    assert.match(verdict.message.tranId, /^\d{15}$/);
    assert.match(verdict.message.postDate, /^\d{4}$/);
    assert.equal(verdict.message.udfs.udf1, 'order 1');
    assert.equal(verdict.message.fields.result, 'CAPTURED');
    assert.equal(verdict.message.fields.avr, 'N');
    const post = sim.paymentByTrack(trackId)!.notifications[0];
    assert.equal(new URLSearchParams(post.body).get('trackid'), trackId);
    assert.match(new URLSearchParams(post.body).get('trandata') as string, /^[0-9A-F]+$/);
    assert.equal(post.reply, `REDIRECT=${merchant.url}/receipt/?track=${trackId}`);
  });

  it('reads a decline (other expiry) and a cancel on the page', async () => {
    const declined = await startPayment();
    await submitPage(declined.pageUrl, { ...TEST_CARD, expmm: '05' });
    assert.equal(merchant.verdicts.at(-1)!.outcome, 'declined');
    assert.equal(merchant.verdicts.at(-1)!.message.result, 'NOT CAPTURED');

    const canceled = await startPayment();
    const back = await submitPage(canceled.pageUrl, { action: 'cancel' });
    assert.equal(back.headers.get('location'), `${merchant.url}/receipt/?track=${canceled.trackId}`);
    assert.equal(merchant.verdicts.at(-1)!.outcome, 'canceled');
    assert.equal(merchant.verdicts.at(-1)!.message.tranId, '');
  });

  it('refuses tampered, foreign-key and unencrypted posts with one uniform error', async () => {
    const { paymentId } = await pay();
    const refusedBefore = merchant.refused.length;
    const verdictsBefore = merchant.verdicts.length;
    for (const options of [
      { tamper: true },
      { resourceKey: 'ANOTHERTERMKEY16' },
      { raw: 'paymentid=1&trackid=2&result=CAPTURED&amt=20.550' },
      { raw: 'trandata=zz' },
    ]) {
      const answer = await sim.postToResponseUrl(paymentId, options);
      assert.equal(answer.status, 400, JSON.stringify(options));
      assert.equal(answer.reply, 'The KNET result could not be verified');
    }
    assert.equal(merchant.refused.length, refusedBefore + 4);
    assert.equal(merchant.verdicts.length, verdictsBefore);
  });

  it('refuses a genuine result checked against another track', async () => {
    const { trackId } = await pay();
    const message = merchant.verdicts.at(-1)!.message;
    assert.throws(
      () => client.checkResult(message, { trackId: newTrack(), amount: '20.55' }),
      (error: unknown) =>
        error instanceof KnetUnverifiedError && error.message === 'The KNET result could not be verified',
    );
    assert.equal(client.checkResult(message, { trackId, amount: '20.550' }).outcome, 'captured');
  });

  it('detects a result whose amount differs from the attempt', async () => {
    const { paymentId } = await pay('20.55');
    const answer = await sim.postToResponseUrl(paymentId, { fields: { amt: '2.055' } });
    assert.equal(answer.status, 200);
    const verdict = merchant.verdicts.at(-1)!;
    assert.equal(verdict.outcome, 'amount_mismatch');
    assert.equal(verdict.message.result, 'CAPTURED');
  });

  it('reads a repeated post the same way (KNET resends the same bytes)', async () => {
    const { trackId, paymentId } = await pay();
    const again = await sim.resendNotification(paymentId);
    assert.equal(again.status, 200);
    const both = merchant.verdicts.filter((v) => v.message.trackId === trackId);
    assert.equal(both.length, 2);
    assert.deepEqual(both[0], both[1]);
  });

  it('reads a bare hex body and KNET plain error posts', () => {
    const trandata = sim.paymentByTrack(merchant.verdicts.at(-1)!.message.trackId)!.notifications[0].body;
    const hex = new URLSearchParams(trandata).get('trandata') as string;
    assert.equal(client.openResult(hex).kind, 'result');
    const error = client.openResult('Error=IPAY0100048&ErrorText=Cancelled&trackid=ABC&paymentid=1');
    assert.deepEqual(error, {
      kind: 'error',
      error: 'IPAY0100048',
      errorText: 'Cancelled',
      claimedTrackId: 'ABC',
      claimedPaymentId: '1',
    });
    assert.throws(
      () => client.verifyResult('Error=IPAY0100048', { trackId: 'ABC', amount: '1' }),
      KnetUnverifiedError,
    );
    assert.throws(() => client.openResult(''), KnetUnverifiedError);
  });

  it('is reversed by KNET when the responseURL does not answer REDIRECT=', async () => {
    merchant.replyMode = 'html';
    const { trackId, pageUrl } = await startPayment('3');
    const done = await submitPage(pageUrl, TEST_CARD);
    assert.equal(done.status, 200);
    assert.match(await done.text(), /IPAY0100249/);
    assert.equal(sim.paymentByTrack(trackId)!.state, 'REVERSED');
    const inquiry = await client.inquire({ trackId, amount: '3' });
    assert.equal(inquiry.status, 'not_captured');
  });

  it('inquires by track id: captured, declined, never submitted and unknown tracks', async () => {
    const { trackId } = await pay('7.5');
    const captured = await client.inquire({ trackId, amount: '7.500' });
    assert.equal(captured.status, 'captured');
    assert.ok(captured.status === 'captured' && captured.details.result === 'SUCCESS');
    assert.ok(captured.status === 'captured' && /^\d{18}$/.test(captured.details.paymentId));
    const inquiry = sim.requests.filter((r) => r.endpoint === 'inquiry').at(-1)!;
    assert.match(inquiry.contentType, /^application\/xml/);
    assert.deepEqual(
      [
        inquiry.fields.action,
        inquiry.fields.transid,
        inquiry.fields.trackid,
        inquiry.fields.udf5,
        inquiry.fields.amt,
      ],
      ['8', trackId, trackId, 'TrackID', '7.500'],
    );

    const declined = sim.setState(newTrack(), 'NOT CAPTURED', '4.000');
    const answer = await client.inquire({ trackId: declined.trackId, amount: '4' });
    assert.equal(answer.status, 'not_captured');

    const open = await startPayment('4');
    for (const form of ['INITIATED', 'FAILURE(INITIATED)']) {
      sim.initiatedResult = form;
      const initiated = await client.inquire({ trackId: open.trackId, amount: '4' });
      assert.equal(initiated.status, 'initiated', form);
      assert.ok(initiated.status === 'initiated' && /^\d{18}$/.test(initiated.details.paymentId));
    }
    sim.initiatedResult = 'INITIATED';
    assert.deepEqual(await client.inquire({ trackId: newTrack(), amount: '4' }), {
      status: 'not_found',
      errorCode: 'IPAY0100263',
    });
  });

  it('never sends a track id KNET could not take back as transid (over 19 characters)', async () => {
    const long = `${newTrack()}A`;
    const before = sim.requests.length;
    assert.throws(
      () =>
        client.paymentRedirect({
          trackId: long,
          amount: '1',
          responseUrl: merchant.responseUrl,
          errorUrl: merchant.errorUrl,
        }),
      KnetRequestError,
    );
    await assert.rejects(client.inquire({ trackId: long, amount: '1' }), KnetRequestError);
    await assert.rejects(client.refund({ trackId: long, amount: '1' }), KnetRequestError);
    assert.equal(sim.requests.length, before, 'nothing was sent');
    // What KNET does with one: its error answer, never the transaction (the simulator, K-064 §3.5.4).
    const answer = await fetch(`${sim.inquiryUrl}?param=tranInit`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/xml' },
      body: `<id>${terminal.tranportalId}</id><password>${terminal.tranportalPassword}</password><action>8</action><amt>1.000</amt><transid>${long}</transid><trackid>${long}</trackid><udf5>TrackID</udf5>`,
    });
    assert.match(await answer.text(), /<result>!ERROR!-IPAY0100233-/);
  });

  it('reads KNET’s error code on an inquiry it cannot answer now', async () => {
    const { trackId } = await pay('3');
    sim.failNext('inquiry', 1, 'error', { code: 'IPAY0200018', trackId });
    await assert.rejects(client.inquire({ trackId, amount: '3' }), (error: unknown) => {
      return error instanceof KnetAnswerError && error.errorCode === 'IPAY0200018';
    });
    sim.failNext('inquiry', 1, 'http500');
    await assert.rejects(client.inquire({ trackId, amount: '3' }), (error: unknown) => {
      return error instanceof KnetAnswerError && error.httpStatus === 500;
    });
    assert.equal((await client.inquire({ trackId, amount: '3' })).status, 'captured');
  });

  it('reads the result posted as bare ciphertext, as KNET’s kit does', async () => {
    sim.resultPost = 'bare';
    try {
      const { trackId, pageUrl } = await startPayment('6');
      const done = await submitPage(pageUrl, TEST_CARD);
      assert.equal(done.status, 302, 'KNET read REDIRECT=');
      const post = sim.paymentByTrack(trackId)!.notifications[0];
      assert.match(post.body, /^[0-9A-F]+$/);
      assert.equal(merchant.verdicts.at(-1)!.outcome, 'captured');
      assert.equal(merchant.verdicts.at(-1)!.message.trackId, trackId);
      assert.equal(merchant.verdicts.at(-1)!.message.trandata, post.body);
    } finally {
      sim.resultPost = 'form';
    }
  });

  it('sends a second tab to the errorURL (IPAY0100040) while the first tab still pays', async () => {
    const { trackId, pageUrl } = await startPayment('2');
    assert.equal((await fetch(pageUrl)).status, 200);
    const second = await fetch(pageUrl, { redirect: 'manual' });
    assert.equal(second.status, 302);
    const link = new URL(second.headers.get('location') as string);
    assert.equal(`${link.origin}${link.pathname}`, merchant.errorUrl);
    assert.equal(link.searchParams.get('Error'), 'IPAY0100040');
    assert.equal(link.searchParams.get('trackid'), trackId);
    assert.equal((await client.inquire({ trackId, amount: '2' })).status, 'initiated');
    const done = await submitPage(pageUrl, TEST_CARD);
    assert.equal(done.status, 302);
    assert.equal((await client.inquire({ trackId, amount: '2' })).status, 'captured');
  });

  it('ends the page at its time limit (IPAY0100042): nothing can be paid, inquiry still says INITIATED', async () => {
    sim.pageLimitMs = 200;
    try {
      const { trackId, pageUrl } = await startPayment('2');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const page = await fetch(pageUrl, { redirect: 'manual' });
      assert.equal(page.status, 302);
      assert.equal(new URL(page.headers.get('location') as string).searchParams.get('Error'), 'IPAY0100042');
      const late = await submitPage(pageUrl, TEST_CARD);
      assert.equal(late.status, 302);
      assert.equal(new URL(late.headers.get('location') as string).searchParams.get('Error'), 'IPAY0100042');
      assert.equal(sim.paymentByTrack(trackId)!.state, 'INITIALIZED');
      assert.equal(sim.paymentByTrack(trackId)!.notifications.length, 0, 'no result was posted');
      assert.equal((await client.inquire({ trackId, amount: '2' })).status, 'initiated');
    } finally {
      sim.pageLimitMs = 30 * 60_000;
    }
  });

  it('treats an inquiry KNET refuses as an error, not as an answer', async () => {
    const { trackId } = await pay('7.5');
    await assert.rejects(client.inquire({ trackId, amount: '7.4' }), (error: unknown) => {
      return error instanceof KnetAnswerError && error.errorCode === 'IPAY0100025';
    });
    const wrong = new KnetClient({ ...terminal, tranportalPassword: 'wrong' }, { logger: captureLogger });
    await assert.rejects(wrong.inquire({ trackId, amount: '7.5' }), (error: unknown) => {
      return (
        error instanceof KnetAnswerError &&
        error.errorCode === 'IPAY0100015' &&
        !error.message.includes('wrong')
      );
    });
    sim.failNext('inquiry', 1, 'http500');
    await assert.rejects(client.inquire({ trackId, amount: '7.5' }), KnetAnswerError);
  });

  it('refunds in full or in parts, never beyond the captured amount', async () => {
    const { trackId } = await pay('10');
    const part = await client.refund({ trackId, amount: '4' });
    assert.equal(part.status, 'refunded');
    assert.ok(part.status === 'refunded' && part.details.amount === '4.000');
    const refund = sim.requests.filter((r) => r.endpoint === 'refund').at(-1)!;
    assert.deepEqual(
      [
        refund.fields.action,
        refund.fields.transid,
        refund.fields.trackid,
        refund.fields.udf5,
        refund.fields.amt,
      ],
      ['2', trackId, trackId, 'TrackID', '4.000'],
    );
    const tooMuch = await client.refund({ trackId, amount: '6.001' });
    assert.deepEqual(
      [tooMuch.status, tooMuch.status === 'refused' && tooMuch.errorCode],
      ['refused', 'IPAY0100137'],
    );
    assert.equal((await client.refund({ trackId, amount: '6' })).status, 'refunded');
    assert.equal(sim.paymentByTrack(trackId)!.refunds.length, 2);

    const declined = sim.setState(newTrack(), 'NOT CAPTURED', '4.000');
    const refused = await client.refund({ trackId: declined.trackId, amount: '4' });
    assert.deepEqual(
      [refused.status, refused.status === 'refused' && refused.errorCode],
      ['refused', 'IPAY0100285'],
    );
  });

  it('is refused a refund where the acquirer does not permit refunds', async () => {
    const noRefunds = sim.addTerminal({
      tranportalId: '600002',
      password: 'pass600002',
      resourceKey: 'KNETRESOURCEKEY2',
      refunds: false,
    });
    const other = new KnetClient(
      {
        ...terminal,
        tranportalId: noRefunds.tranportalId,
        tranportalPassword: noRefunds.password,
        resourceKey: noRefunds.resourceKey,
      },
      { logger: captureLogger },
    );
    const answer = await other.refund({ trackId: newTrack(), amount: '1' });
    assert.deepEqual(
      [answer.status, answer.status === 'refused' && answer.errorCode],
      ['refused', 'IPAY0100033'],
    );
  });

  it('gives up when KNET does not answer in time, or drops the connection', async () => {
    const { trackId } = await pay('2');
    const quick = new KnetClient(terminal, { timeoutMs: 300, logger: captureLogger });
    sim.delay('inquiry', 1500);
    const started = Date.now();
    await assert.rejects(quick.inquire({ trackId, amount: '2' }), (error: unknown) => {
      return error instanceof ProviderTransportError && error.kind === 'timeout';
    });
    assert.ok(Date.now() - started < 1200, `gave up after ${Date.now() - started} ms`);
    sim.delay('inquiry', 0);
    // A background call may allow more than timeout_ms.
    sim.delay('inquiry', 500);
    assert.equal((await quick.inquire({ trackId, amount: '2' }, { timeoutMs: 3000 })).status, 'captured');
    sim.delay('inquiry', 0);

    sim.failNext('refund', 1, 'drop_after');
    await assert.rejects(client.refund({ trackId, amount: '1' }), (error: unknown) => {
      return error instanceof ProviderTransportError && error.kind === 'network';
    });
    assert.equal(
      sim.paymentByTrack(trackId)!.refunds.length,
      1,
      'the lost answer hid a refund that happened',
    );
  });

  it('gives up connecting after the connect limit (a TLS handshake that never comes)', async () => {
    const accepted: Socket[] = [];
    const silent: Server = createServer((socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const stuck = new KnetClient(
        { ...terminal, inquiryUrl: `https://127.0.0.1:${port}/kpg/tranPipe.htm` },
        { timeoutMs: 3000, connectTimeoutMs: 200, logger: captureLogger },
      );
      const started = Date.now();
      await assert.rejects(stuck.inquire({ trackId: newTrack(), amount: '1' }), (error: unknown) => {
        return error instanceof ProviderTransportError && error.kind === 'connect_timeout';
      });
      assert.ok(Date.now() - started < 1500);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('never logs the password, the resource key or trandata', () => {
    assert.ok(logged.length > 0);
    const all = logged.join('\n');
    for (const secret of [terminal.tranportalPassword, terminal.resourceKey, 'trandata', 'wrong']) {
      assert.ok(!all.includes(secret), `the log shows ${secret}`);
    }
  });
});
