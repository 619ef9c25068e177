// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MpgsClient } from '../../../src/payments/providers/mpgs/mpgs-client';
import { MpgsApiError } from '../../../src/payments/providers/mpgs/mpgs-errors';
import type { MpgsInitiateCheckoutInput } from '../../../src/payments/providers/mpgs/mpgs-types';
import { ProviderTransportError } from '../../../src/payments/providers/provider-http';
import { MpgsSimulator, newTransactionId } from './mpgs-simulator';

const APPROVED = { number: '5123450000000008', expiry: '01/39' };
const DECLINED = { number: '5123450000000008', expiry: '05/39' };

/** Receives the simulator's notifications: the `order.status` and `result` of each, in order. */
async function startReceiver(): Promise<{
  url: string;
  got: { status: string; result: string }[];
  server: Server;
}> {
  const got: { status: string; result: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        result: string;
        order: { status: string };
      };
      got.push({ status: body.order.status, result: body.result });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`, got, server };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/**
 * The MPGS simulator's documented edges, each as MPGS's pages describe it, through the
 * client: retries on the Hosted Payment Page after a decline, cancel then pay on the same session,
 * sessions that expire, 3-D Secure started and abandoned, a repeated transaction id, an order
 * lookup that hangs.
 */
describe('MPGS simulator: the documented edges', () => {
  let sim: MpgsSimulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let client: MpgsClient;

  const checkout = (overrides: Partial<MpgsInitiateCheckoutInput> = {}): MpgsInitiateCheckoutInput => ({
    orderId: `edge-${newTransactionId().slice(0, 12)}`,
    amount: '20',
    currency: 'KWD',
    digits: 3,
    operation: 'PURCHASE',
    returnUrl: 'https://shop.example/return',
    cancelUrl: 'https://shop.example/cancel',
    notificationUrl: receiver.url,
    ...overrides,
  });

  before(async () => {
    sim = await new MpgsSimulator().start();
    receiver = await startReceiver();
    // The whole-call limit a gateway gets by default: the first calls of a loaded CI run took over
    // the 1 s that only the hung lookup below needs.
    client = new MpgsClient(sim.settings({ timeout_ms: 8000 }));
  });
  after(async () => {
    await sim?.stop();
    receiver?.server.close();
  });

  it('a decline keeps the payer on the page; the retry on the same session pays: FAILED then SUCCESS notified, one charge', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    const page = `${sim.url}/checkout/pay/${session.sessionId}`;
    const before = receiver.got.length;
    assert.equal(sim.payOnHostedPage(session.sessionId, DECLINED), page);
    assert.equal((await client.retrieveOrder(input.orderId)).status, 'FAILED');
    await sim.notifier.settled(); // the decline's notification is out before the retry
    const back = new URL(sim.payOnHostedPage(session.sessionId, APPROVED));
    assert.equal(back.origin + back.pathname, input.returnUrl);
    assert.equal(
      MpgsClient.resultIndicatorMatches(back.searchParams.get('resultIndicator'), session.successIndicator),
      true,
    );
    const order = await client.retrieveOrder(input.orderId);
    assert.equal(order.status, 'CAPTURED');
    assert.deepEqual(
      order.transaction?.map((t) => `${t.transaction.type} ${t.result}`),
      ['PAYMENT FAILURE', 'PAYMENT SUCCESS'],
    );
    await sim.notifier.settled();
    assert.deepEqual(receiver.got.slice(before), [
      { status: 'FAILED', result: 'FAILURE' },
      { status: 'CAPTURED', result: 'SUCCESS' },
    ]);
    assert.deepEqual(
      sim
        .charges()
        .filter((c) => c.orderId === input.orderId)
        .map((c) => c.amount),
      ['20.000'],
    );
    assert.throws(
      () => sim.payOnHostedPage(session.sessionId, APPROVED),
      /cannot pay/,
      'a paid session is done',
    );
  });

  it('the page the payer stays on says so and still takes the card', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    const form = (card: { number: string; expiry: string }) =>
      fetch(`${sim.url}/checkout/pay/${session.sessionId}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          action: 'pay',
          cardNumber: card.number,
          expiry: card.expiry,
          securityCode: '100',
        }),
        redirect: 'manual',
      });
    const declined = await form(DECLINED);
    assert.equal(declined.status, 200);
    assert.match(await declined.text(), /role="alert">Your payment was declined\. Try again/);
    const paid = await form(APPROVED);
    assert.equal(paid.status, 303);
    assert.match(paid.headers.get('location') ?? '', /^https:\/\/shop\.example\/return\?resultIndicator=/);
  });

  it('with redirectMerchantUrl and retryAttemptCount the payer goes there once the retries are used up, and the session pays no more', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    // The client sends neither field; INITIATE CHECKOUT as a merchant that sets both would.
    const res = await fetch(`${sim.url}/api/rest/version/100/merchant/${sim.merchantId}/session`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`merchant.${sim.merchantId}:${sim.apiPassword}`).toString('base64')}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        apiOperation: 'INITIATE_CHECKOUT',
        interaction: {
          operation: 'PURCHASE',
          returnUrl: 'https://shop.example/return',
          redirectMerchantUrl: 'https://shop.example/failed',
          retryAttemptCount: 1,
        },
        order: { id: `${input.orderId}-r`, amount: '20', currency: 'KWD' },
      }),
    });
    assert.equal(res.status, 201);
    const limited = ((await res.json()) as { session: { id: string } }).session.id;
    assert.equal(
      sim.payOnHostedPage(limited, DECLINED),
      `${sim.url}/checkout/pay/${limited}`,
      'one retry left',
    );
    assert.match(
      sim.payOnHostedPage(limited, DECLINED),
      /^https:\/\/shop\.example\/failed\?resultIndicator=/,
    );
    assert.throws(() => sim.payOnHostedPage(limited, APPROVED), /cannot pay/);
    // The other session, without them, keeps taking tries.
    for (let i = 0; i < 4; i++) sim.payOnHostedPage(session.sessionId, DECLINED);
    assert.match(sim.payOnHostedPage(session.sessionId, APPROVED), /^https:\/\/shop\.example\/return\?/);
  });

  it('cancel sends the payer to cancelUrl; the same session still pays afterwards', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    const cancel = await fetch(`${sim.url}/checkout/pay/${session.sessionId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'action=cancel',
      redirect: 'manual',
    });
    assert.equal(cancel.status, 303);
    assert.equal(cancel.headers.get('location'), input.cancelUrl);
    assert.equal(
      ((await rejection(client.retrieveOrder(input.orderId))) as MpgsApiError).status,
      404,
      'no order yet',
    );
    const again = await fetch(`${sim.url}/checkout/pay/${session.sessionId}`);
    assert.equal(again.status, 200, 'the page of the same session is shown again');
    sim.payOnHostedPage(session.sessionId, APPROVED);
    assert.equal((await client.retrieveOrder(input.orderId)).status, 'CAPTURED');
  });

  it('sessions expire: an expired session’s page pays nothing', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    const lifetime = (sim.sessionOf(session.sessionId)?.expiresAt ?? 0) - Date.now();
    assert.ok(lifetime > 14 * 60_000 && lifetime <= 15 * 60_000, `${lifetime} ms`);
    sim.expireSession(session.sessionId);
    assert.equal((await fetch(`${sim.url}/checkout/pay/${session.sessionId}`)).status, 410);
    assert.throws(() => sim.payOnHostedPage(session.sessionId, APPROVED), /cannot pay/);
  });

  it('3-D Secure started then abandoned: the order holds only an AUTHENTICATION transaction, AUTHENTICATION_INITIATED; the session still pays', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    const before = receiver.got.length;
    sim.authenticateOnHostedPage(session.sessionId, APPROVED);
    let order = await client.retrieveOrder(input.orderId);
    assert.equal(order.status, 'AUTHENTICATION_INITIATED');
    assert.deepEqual(
      order.transaction?.map((t) => `${t.transaction.type} ${t.result}`),
      ['AUTHENTICATION PENDING'],
    );
    assert.equal(order.totalCapturedAmount, '0');
    const failed = checkout();
    const other = await client.initiateCheckout(failed);
    sim.authenticateOnHostedPage(other.sessionId, APPROVED, 'failed');
    assert.equal((await client.retrieveOrder(failed.orderId)).status, 'AUTHENTICATION_UNSUCCESSFUL');
    sim.payOnHostedPage(session.sessionId, APPROVED);
    order = await client.retrieveOrder(input.orderId);
    assert.equal(order.status, 'CAPTURED');
    await sim.notifier.settled();
    assert.deepEqual(receiver.got.slice(before), [{ status: 'CAPTURED', result: 'SUCCESS' }]);
  });

  it('a repeated transaction id is refused, whatever the operation', async () => {
    const input = checkout({ operation: 'AUTHORIZE' });
    const session = await client.initiateCheckout(input);
    sim.payOnHostedPage(session.sessionId, APPROVED);
    await client.capture(input.orderId, 'same-id', '5', 'KWD', 3);
    for (const repeat of [
      () => client.capture(input.orderId, 'same-id', '5', 'KWD', 3),
      () => client.refund(input.orderId, 'same-id', '5', 'KWD', 3),
    ]) {
      const error = await rejection(repeat());
      assert.ok(error instanceof MpgsApiError);
      assert.equal(error.errorCause, 'INVALID_REQUEST');
      assert.equal(error.field, 'transaction.id');
    }
    assert.equal((await client.retrieveOrder(input.orderId)).totalCapturedAmount, '5');
  });

  it('an order lookup that hangs answers nothing until released; the caller’s limit ends the wait', async () => {
    const release = sim.hang('RETRIEVE_ORDER');
    const impatient = new MpgsClient(sim.settings({ timeout_ms: 1000 }));
    try {
      const started = Date.now();
      const error = await rejection(impatient.retrieveOrder('hung-order'));
      assert.ok(error instanceof ProviderTransportError);
      assert.equal(error.kind, 'timeout');
      assert.ok(Date.now() - started < 1500);
    } finally {
      release();
    }
    assert.equal(((await rejection(client.retrieveOrder('hung-order'))) as MpgsApiError).status, 404);
  });
});
