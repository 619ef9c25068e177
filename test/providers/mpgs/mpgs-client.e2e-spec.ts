// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { createServer as createHttpServer, IncomingHttpHeaders, Server } from 'node:http';
import { createServer as createTcpServer, Server as TcpServer, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { MpgsClient, MpgsClientOptions } from '../../../src/payments/providers/mpgs/mpgs-client';
import { MpgsApiError } from '../../../src/payments/providers/mpgs/mpgs-errors';
import { MpgsInitiateCheckoutInput } from '../../../src/payments/providers/mpgs/mpgs-types';
import { ProviderTransportError } from '../../../src/payments/providers/provider-http';
import { MpgsSimulator, newTransactionId } from './mpgs-simulator';

/** A receiver of the simulator's notifications: records each POST, answers 200. */
async function startReceiver(): Promise<{
  url: string;
  got: { headers: IncomingHttpHeaders; body: string }[];
  server: Server;
}> {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
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

describe('MPGS client against the MPGS simulator', () => {
  let sim: MpgsSimulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let client: MpgsClient;
  const logLines: string[] = [];
  const logger = {
    info: (fields: Record<string, unknown>, message: string) =>
      logLines.push(JSON.stringify({ ...fields, message })),
    warn: (fields: Record<string, unknown>, message: string) =>
      logLines.push(JSON.stringify({ ...fields, message })),
  };
  const makeClient = (settings: Record<string, unknown> = {}, options: MpgsClientOptions = {}) =>
    new MpgsClient(sim.settings({ timeout_ms: 3000, ...settings }), { logger, ...options });

  const checkout = (overrides: Partial<MpgsInitiateCheckoutInput> = {}): MpgsInitiateCheckoutInput => ({
    orderId: `ref-${newTransactionId().slice(0, 12)}`,
    amount: '10.5',
    currency: 'KWD',
    digits: 3,
    description: 'Order 42',
    operation: 'PURCHASE',
    returnUrl: 'https://shop.example/b/checkout/v1/gateways/mpgs/return/',
    cancelUrl: 'https://shop.example/b/checkout/v1/gateways/mpgs/return/?cancelled=1',
    notificationUrl: receiver.url,
    ...overrides,
  });

  before(async () => {
    sim = await new MpgsSimulator().start();
    receiver = await startReceiver();
    client = makeClient();
  });
  after(async () => {
    await sim?.stop();
    receiver?.server.close();
  });
  beforeEach(() => {
    sim.notifier.controls = {
      ...sim.notifier.controls,
      mode: 'send',
      duplicates: 0,
      delayMs: 0,
      forge: false,
    };
  });

  it('INITIATE CHECKOUT sends the documented fields with Basic auth and returns the session', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    assert.match(session.sessionId, /^SESSION/);
    assert.ok(session.successIndicator.length > 0);
    assert.ok(session.sessionVersion);
    const request = sim.requestsFor('INITIATE_CHECKOUT').at(-1);
    assert.ok(request);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, `/api/rest/version/100/merchant/${sim.merchantId}/session`);
    assert.equal(request.user, `merchant.${sim.merchantId}`);
    assert.equal(request.authenticated, true);
    assert.deepEqual(request.body, {
      apiOperation: 'INITIATE_CHECKOUT',
      interaction: {
        operation: 'PURCHASE',
        returnUrl: input.returnUrl,
        cancelUrl: input.cancelUrl,
        merchant: { name: 'Checkout Test Shop' },
      },
      order: {
        id: input.orderId,
        amount: '10.500',
        currency: 'KWD',
        description: 'Order 42',
        notificationUrl: receiver.url,
      },
    });
    assert.equal(client.checkoutScriptUrl, `${sim.url}/static/checkout/checkout.min.js`);
  });

  it('uses the configured API version in every path', async () => {
    const v99 = makeClient({ api_version: 99 });
    await v99.initiateCheckout(checkout());
    assert.equal(sim.requestsFor('INITIATE_CHECKOUT').at(-1)?.apiVersion, 99);
  });

  it('amounts go out with the currency digits, and an amount with more decimals is refused before any call', async () => {
    const before = sim.requests.length;
    await client.initiateCheckout(checkout({ amount: '1500', currency: 'JPY', digits: 0 }));
    assert.equal((sim.requests.at(-1)?.body as { order: { amount: string } }).order.amount, '1500');
    await assert.rejects(
      client.initiateCheckout(checkout({ amount: '10.25', currency: 'JPY', digits: 0 })),
      /more than 0 decimals/,
    );
    assert.equal(sim.requests.length, before + 1);
  });

  it('field validation errors come back in MPGS shape: cause, explanation, field, validationType', async () => {
    const wrongCurrency = await rejection(client.initiateCheckout(checkout({ currency: 'ZZZ', digits: 2 })));
    assert.ok(wrongCurrency instanceof MpgsApiError);
    assert.equal(wrongCurrency.status, 400);
    assert.equal(wrongCurrency.errorCause, 'INVALID_REQUEST');
    assert.equal(wrongCurrency.field, 'order.currency');
    assert.equal(wrongCurrency.validationType, 'INVALID');
    assert.match(wrongCurrency.explanation ?? '', /ZZZ/);

    const noOrderId = await rejection(client.initiateCheckout(checkout({ orderId: '' })));
    assert.ok(noOrderId instanceof MpgsApiError);
    assert.equal(noOrderId.field, 'order.id');
    assert.equal(noOrderId.validationType, 'MISSING');

    const badUrl = await rejection(client.initiateCheckout(checkout({ returnUrl: 'not a url' })));
    assert.ok(badUrl instanceof MpgsApiError);
    assert.equal(badUrl.field, 'interaction.returnUrl');
  });

  it('refused credentials: a 401 MpgsApiError, not retried, with no password in the message or the log', async () => {
    const wrong = new MpgsClient({ ...sim.settings(), api_password: 'wrong-password-123' }, { logger });
    const sent = sim.requests.length;
    const error = await rejection(wrong.retrieveOrder('any-order'));
    assert.ok(error instanceof MpgsApiError);
    assert.equal(error.status, 401);
    assert.equal(error.authenticationFailed, true);
    assert.equal(sim.requests.length, sent + 1);
    const everything = `${error.message} ${error.stack ?? ''} ${logLines.join('\n')}`;
    for (const secret of [
      'wrong-password-123',
      sim.apiPassword,
      Buffer.from(`merchant.${sim.merchantId}:${sim.apiPassword}`).toString('base64'),
    ]) {
      assert.equal(everything.includes(secret), false);
    }
  });

  it('a paid session: resultIndicator matches successIndicator and RETRIEVE ORDER shows it captured, amounts as decimal text', async () => {
    const input = checkout({ amount: '12.345' });
    const session = await client.initiateCheckout(input);
    const back = new URL(
      sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39', csc: '100' }),
    );
    assert.equal(back.origin + back.pathname, 'https://shop.example/b/checkout/v1/gateways/mpgs/return/');
    assert.equal(back.searchParams.get('sessionVersion'), session.sessionVersion);
    assert.equal(
      MpgsClient.resultIndicatorMatches(back.searchParams.get('resultIndicator'), session.successIndicator),
      true,
    );

    const order = await client.retrieveOrder(input.orderId);
    assert.equal(order.result, 'SUCCESS');
    assert.equal(order.status, 'CAPTURED');
    assert.equal(order.amount, '12.345');
    assert.equal(order.currency, 'KWD');
    assert.equal(order.totalCapturedAmount, '12.345');
    assert.equal(order.transaction?.length, 1);
    const payment = order.transaction?.[0];
    assert.equal(payment?.result, 'SUCCESS');
    assert.equal(payment?.response?.gatewayCode, 'APPROVED');
    assert.equal(payment?.transaction.type, 'PAYMENT');
    const card = payment?.sourceOfFunds?.provided?.card;
    assert.equal(card?.number, '512345xxxxxx0008');

    const single = await client.retrieveTransaction(input.orderId, payment?.transaction.id ?? '');
    assert.equal(single.transaction.amount, '12.345');
  });

  it('a declined card (expiry 05/39): the payer stays on the page, the order is FAILED with gatewayCode DECLINED', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    const next = sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '05/39' });
    assert.equal(next, `${sim.url}/checkout/pay/${session.sessionId}`, 'still on the hosted page');
    const order = await client.retrieveOrder(input.orderId);
    assert.equal(order.status, 'FAILED');
    assert.equal(order.transaction?.[0].result, 'FAILURE');
    assert.equal(order.transaction?.[0].response?.gatewayCode, 'DECLINED');
  });

  it('authorize, partial captures, partial and full refund: totals and statuses follow', async () => {
    const input = checkout({ amount: '100', currency: 'USD', digits: 2, operation: 'AUTHORIZE' });
    const session = await client.initiateCheckout(input);
    sim.payOnHostedPage(session.sessionId, { number: '4508750015741019', expiry: '01/39' });
    let order = await client.retrieveOrder(input.orderId);
    assert.equal(order.status, 'AUTHORIZED');
    assert.equal(order.transaction?.[0].transaction.type, 'AUTHORIZATION');

    const first = await client.capture(input.orderId, 'cap-1', '60', 'USD', 2);
    assert.equal(first.result, 'SUCCESS');
    assert.equal(first.transaction.type, 'CAPTURE');
    assert.equal(first.transaction.amount, '60');
    assert.equal(first.order.status, 'PARTIALLY_CAPTURED');
    assert.deepEqual(sim.requestsFor('CAPTURE').at(-1)?.body, {
      apiOperation: 'CAPTURE',
      transaction: { amount: '60.00', currency: 'USD' },
    });
    assert.equal(sim.requestsFor('CAPTURE').at(-1)?.method, 'PUT');
    assert.equal(
      sim.requestsFor('CAPTURE').at(-1)?.path.endsWith(`/order/${input.orderId}/transaction/cap-1`),
      true,
    );

    const tooMuch = await rejection(client.capture(input.orderId, 'cap-x', '40.01', 'USD', 2));
    assert.ok(tooMuch instanceof MpgsApiError);
    assert.equal(tooMuch.field, 'transaction.amount');

    const second = await client.capture(input.orderId, 'cap-2', '40', 'USD', 2);
    assert.equal(second.order.status, 'CAPTURED');
    const refund = await client.refund(input.orderId, 'ref-1', '25.5', 'USD', 2);
    assert.equal(refund.transaction.type, 'REFUND');
    assert.equal(refund.order.status, 'PARTIALLY_REFUNDED');
    assert.equal(refund.order.totalRefundedAmount, '25.5');
    const rest = await client.refund(input.orderId, 'ref-2', '74.5', 'USD', 2);
    assert.equal(rest.order.status, 'REFUNDED');
    order = await client.retrieveOrder(input.orderId);
    assert.equal(order.totalCapturedAmount, '100');
    assert.equal(order.totalRefundedAmount, '100');
    assert.deepEqual(
      order.transaction?.map((t) => t.transaction.type),
      ['AUTHORIZATION', 'CAPTURE', 'CAPTURE', 'REFUND', 'REFUND'],
    );
  });

  it('void of an authorization cancels the order', async () => {
    const input = checkout({ operation: 'AUTHORIZE' });
    const session = await client.initiateCheckout(input);
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    const authorization = (await client.retrieveOrder(input.orderId)).transaction?.[0].transaction.id ?? '';
    const voided = await client.void(input.orderId, 'void-1', authorization);
    assert.equal(voided.result, 'SUCCESS');
    assert.equal(voided.transaction.type, 'VOID_AUTHORIZATION');
    assert.equal(voided.transaction.targetTransactionId, authorization);
    assert.equal(voided.order.status, 'CANCELLED');
    assert.deepEqual(sim.requestsFor('VOID').at(-1)?.body, {
      apiOperation: 'VOID',
      transaction: { targetTransactionId: authorization },
    });
  });

  it('a PUT repeating a transaction id is refused (MPGS does not promise the first outcome); the first transaction stands', async () => {
    const input = checkout({ operation: 'AUTHORIZE' });
    const session = await client.initiateCheckout(input);
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    const first = await client.capture(input.orderId, 'cap-same', '10.5', 'KWD', 3);
    assert.equal(first.result, 'SUCCESS');
    const again = await rejection(client.capture(input.orderId, 'cap-same', '10.5', 'KWD', 3));
    assert.ok(again instanceof MpgsApiError);
    assert.equal(again.status, 400);
    assert.equal(again.field, 'transaction.id');
    const order = await client.retrieveOrder(input.orderId);
    assert.equal(order.transaction?.filter((t) => t.transaction.type === 'CAPTURE').length, 1);
    assert.equal(order.totalCapturedAmount, '10.5');
  });

  it('a transaction operation whose answer is lost after it was sent is not sent again: the caller retrieves the order', async () => {
    const input = checkout({ operation: 'AUTHORIZE' });
    const session = await client.initiateCheckout(input);
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    const captures = sim.requestsFor('CAPTURE').length;
    sim.loseAnswers(1, 'CAPTURE');
    const lost = await rejection(client.capture(input.orderId, 'cap-lost', '4', 'KWD', 3));
    assert.ok(lost instanceof ProviderTransportError);
    assert.equal(lost.sent, true);
    assert.equal(sim.requestsFor('CAPTURE').length, captures + 1, 'sent once');
    const order = await client.retrieveOrder(input.orderId);
    const capture = order.transaction?.find((t) => t.transaction.id === 'cap-lost');
    assert.equal(capture?.result, 'SUCCESS', 'MPGS did it; its order says so');
    assert.equal(order.totalCapturedAmount, '4');
  });

  it('a shared deadline cuts the call short of timeout_ms', async () => {
    sim.delayAnswers(2000, 1);
    const started = Date.now();
    const error = await rejection(client.retrieveOrder('slow-deadline', { deadline: Date.now() + 300 }));
    const took = Date.now() - started;
    assert.ok(error instanceof ProviderTransportError);
    assert.equal(error.kind, 'timeout');
    assert.ok(took >= 250 && took < 1000, `took ${took} ms`);
  });

  it('INITIATE CHECKOUT of a card to be saved carries storedOnFile TO_BE_STORED and the agreement; the page payment records them', async () => {
    const input = checkout({
      storedOnFile: 'TO_BE_STORED',
      agreement: { id: 'agr-first', type: 'UNSCHEDULED' },
    });
    const session = await client.initiateCheckout(input);
    const sent = sim.requestsFor('INITIATE_CHECKOUT').at(-1)?.body as Record<string, unknown>;
    assert.deepEqual(sent.sourceOfFunds, { provided: { card: { storedOnFile: 'TO_BE_STORED' } } });
    assert.deepEqual(sent.agreement, { id: 'agr-first', type: 'UNSCHEDULED' });
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    const order = await client.retrieveOrder(input.orderId);
    const payment = order.transaction?.[0] as unknown as {
      sourceOfFunds: { provided: { card: { storedOnFile: string } } };
    };
    assert.equal(payment.sourceOfFunds.provided.card.storedOnFile, 'TO_BE_STORED');
  });

  it('SERVER_BUSY: a transaction operation is sent again and succeeds; INITIATE CHECKOUT (a POST) is not', async () => {
    const input = checkout({ operation: 'AUTHORIZE' });
    const session = await client.initiateCheckout(input);
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    const captures = sim.requestsFor('CAPTURE').length;
    sim.failNext(1);
    const captured = await client.capture(input.orderId, 'cap-busy', '10.5', 'KWD', 3);
    assert.equal(captured.result, 'SUCCESS');
    assert.equal(sim.requestsFor('CAPTURE').length, captures + 2);
    assert.ok(logLines.some((line) => line.includes('"retrying":true') && line.includes('SERVER_BUSY')));

    const initiates = sim.requestsFor('INITIATE_CHECKOUT').length;
    sim.failNext(1);
    const busy = await rejection(client.initiateCheckout(checkout()));
    assert.ok(busy instanceof MpgsApiError);
    assert.equal(busy.status, 503);
    assert.equal(busy.errorCause, 'SERVER_BUSY');
    assert.equal(busy.retryable, true);
    assert.equal(sim.requestsFor('INITIATE_CHECKOUT').length, initiates + 1);
  });

  it('REQUEST_REJECTED and SERVER_FAILED are reported with their HTTP codes and not retried', async () => {
    const before = sim.requests.length;
    sim.failNext(1, { cause: 'REQUEST_REJECTED' });
    const rejected = await rejection(client.retrieveOrder('whatever'));
    assert.ok(rejected instanceof MpgsApiError);
    assert.equal(rejected.errorCause, 'REQUEST_REJECTED');
    assert.equal(rejected.status, 400);
    sim.failNext(1, { cause: 'SERVER_FAILED' });
    const failed = await rejection(client.retrieveOrder('whatever'));
    assert.ok(failed instanceof MpgsApiError);
    assert.equal(failed.status, 500);
    assert.equal(sim.requests.length, before + 2);
  });

  it('an unknown order is an MpgsApiError', async () => {
    const error = await rejection(client.retrieveOrder('no-such-order'));
    assert.ok(error instanceof MpgsApiError);
    assert.equal(error.status, 404);
  });

  it('no answer within timeout_ms: ProviderTransportError "timeout", raised on time', async () => {
    const quick = makeClient({ timeout_ms: 400 });
    sim.delayAnswers(1500, 1);
    const started = Date.now();
    const error = await rejection(quick.retrieveOrder('slow-order'));
    const took = Date.now() - started;
    assert.ok(error instanceof ProviderTransportError);
    assert.equal(error.kind, 'timeout');
    assert.equal(error.sent, true);
    assert.ok(took >= 350 && took < 1200, `took ${took} ms`);
  });

  it('background calls get the longer limit', async () => {
    const quick = makeClient({ timeout_ms: 300 }, { backgroundTimeoutMs: 3000 });
    sim.delayAnswers(600, 1);
    const error = await rejection(quick.retrieveOrder('slow-but-fine', { background: true }));
    assert.ok(error instanceof MpgsApiError); // answered (404), not timed out
    assert.equal(error.status, 404);
  });

  it('no connection within the connect limit (a TLS server that never answers the handshake): "connect_timeout", not sent', async () => {
    const sockets: Socket[] = [];
    const silent: TcpServer = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const stuck = new MpgsClient(
        { ...sim.settings(), api_base_url: `https://127.0.0.1:${port}`, timeout_ms: 2000 },
        { connectTimeoutMs: 250, logger },
      );
      const started = Date.now();
      const error = await rejection(stuck.retrieveOrder('x'));
      const took = Date.now() - started;
      assert.ok(error instanceof ProviderTransportError);
      assert.equal(error.kind, 'connect_timeout');
      assert.equal(error.sent, false);
      // Sent twice (the request never left), each bounded by the connect limit, well inside timeout_ms.
      assert.equal(sockets.length, 2);
      assert.ok(took < 1200, `took ${took} ms`);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('saved cards: a token from the paid session, a merchant-initiated PAY with it, RETRIEVE and DELETE TOKEN', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    const saved = await client.tokenizeSession(session.sessionId);
    assert.equal(saved.result, 'SUCCESS');
    assert.match(saved.token, /^9\d{15}$/);
    assert.deepEqual(sim.requestsFor('CREATE_TOKEN').at(-1)?.body, {
      session: { id: session.sessionId },
      sourceOfFunds: { type: 'CARD' },
    });

    const orderId = `mit-${newTransactionId().slice(0, 12)}`;
    const paid = await client.payWithToken({
      orderId,
      transactionId: '1',
      amount: '3.25',
      currency: 'KWD',
      digits: 3,
      token: saved.token,
      agreement: { id: 'agr-1', type: 'RECURRING' },
    });
    assert.equal(paid.result, 'SUCCESS');
    assert.equal(paid.order.status, 'CAPTURED');
    assert.equal(paid.transaction.source, 'MERCHANT');
    assert.deepEqual(sim.requestsFor('PAY').at(-1)?.body, {
      apiOperation: 'PAY',
      order: { amount: '3.250', currency: 'KWD' },
      sourceOfFunds: { type: 'CARD', token: saved.token, provided: { card: { storedOnFile: 'STORED' } } },
      transaction: { source: 'MERCHANT' },
      agreement: { id: 'agr-1', type: 'RECURRING' },
    });
    // The cardholder on our page: a CIT, with the security code when one was typed, no agreement.
    const present = await client.payWithToken({
      orderId: `cit-${newTransactionId().slice(0, 12)}`,
      transactionId: '1',
      amount: '1.5',
      currency: 'KWD',
      digits: 3,
      token: saved.token,
      agreement: { id: 'agr-1', type: 'RECURRING' },
      cardholder: { securityCode: '100' },
    });
    assert.equal(present.transaction.source, 'INTERNET');
    assert.deepEqual(sim.requestsFor('PAY').at(-1)?.body, {
      apiOperation: 'PAY',
      order: { amount: '1.500', currency: 'KWD' },
      sourceOfFunds: {
        type: 'CARD',
        token: saved.token,
        provided: { card: { storedOnFile: 'STORED', securityCode: '100' } },
      },
      transaction: { source: 'INTERNET' },
    });
    const token = await client.retrieveToken(saved.token);
    assert.equal(token.sourceOfFunds?.provided?.card?.number, '512345xxxxxx0008');
    assert.equal(
      logLines.some((line) => line.includes(saved.token)),
      false,
    );
    await client.deleteToken(saved.token);
    const gone = await rejection(client.retrieveToken(saved.token));
    assert.ok(gone instanceof MpgsApiError);
    const declined = await rejection(
      client.payWithToken({
        orderId: `mit-${newTransactionId().slice(0, 12)}`,
        transactionId: '1',
        amount: '1',
        currency: 'KWD',
        digits: 3,
        token: saved.token,
      }),
    );
    assert.ok(declined instanceof MpgsApiError);
    assert.equal(declined.field, 'sourceOfFunds.token');
  });

  it('notifications: the transaction JSON with X-Notification-Secret, Id and Attempt; verified when genuine, refused when forged', async () => {
    const input = checkout();
    const session = await client.initiateCheckout(input);
    const count = receiver.got.length;
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    await sim.notifier.settled();
    assert.equal(receiver.got.length, count + 1);
    const genuine = receiver.got[count];
    assert.equal(genuine.headers['x-notification-secret'], sim.notificationSecret);
    assert.ok(genuine.headers['x-notification-id']);
    assert.equal(genuine.headers['x-notification-attempt'], '1');
    const body = JSON.parse(genuine.body) as { order: { id: string }; result: string };
    assert.equal(body.order.id, input.orderId);
    assert.equal(body.result, 'SUCCESS');
    assert.match(genuine.body, /"amount":10\.5[,}]/); // a JSON number, as MPGS sends amounts
    assert.equal(client.verifyNotification(genuine.headers), true);

    sim.notifier.controls.forge = true;
    const refundCount = receiver.got.length;
    await client.refund(input.orderId, 'ref-forged', '1', 'KWD', 3);
    await sim.notifier.settled();
    const forged = receiver.got[refundCount];
    assert.ok(forged);
    assert.notEqual(forged.headers['x-notification-secret'], sim.notificationSecret);
    assert.equal(client.verifyNotification(forged.headers), false);

    const { 'x-notification-secret': _dropped, ...withoutSecret } = genuine.headers;
    assert.equal(client.verifyNotification(withoutSecret), false);
    const noSecretConfigured = makeClient({ notification_secret: undefined });
    assert.equal(noSecretConfigured.verifyNotification(genuine.headers), false);
  });

  it('notification controls: duplicate (same id, next attempt), hold and release in reverse, drop', async () => {
    const input = checkout({ operation: 'AUTHORIZE' });
    const session = await client.initiateCheckout(input);
    sim.notifier.controls.duplicates = 1;
    let from = receiver.got.length;
    sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
    await sim.notifier.settled();
    const copies = receiver.got.slice(from);
    assert.equal(copies.length, 2);
    assert.equal(copies[0].headers['x-notification-id'], copies[1].headers['x-notification-id']);
    assert.deepEqual(
      copies.map((c) => c.headers['x-notification-attempt']),
      ['1', '2'],
    );
    assert.equal(copies[0].body, copies[1].body);

    sim.notifier.controls.duplicates = 0;
    sim.notifier.controls.mode = 'hold';
    await client.capture(input.orderId, 'cap-a', '5', 'KWD', 3);
    await client.capture(input.orderId, 'cap-b', '5.5', 'KWD', 3);
    from = receiver.got.length;
    assert.equal(sim.notifier.heldCount, 2);
    sim.notifier.controls.mode = 'send';
    sim.notifier.releaseHeld({ reverse: true });
    await sim.notifier.settled();
    const ids = receiver.got
      .slice(from)
      .map((c) => (JSON.parse(c.body) as { transaction: { id: string } }).transaction.id);
    assert.deepEqual(ids, ['cap-b', 'cap-a']);

    sim.notifier.controls.mode = 'drop';
    from = receiver.got.length;
    await client.refund(input.orderId, 'ref-dropped', '1', 'KWD', 3);
    await sim.notifier.settled();
    assert.equal(receiver.got.length, from);
  });

  it('notifications are delivered again, same id, while the receiver fails', async () => {
    let failures = 1;
    const seen: IncomingHttpHeaders[] = [];
    const flaky = createHttpServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(failures-- > 0 ? 500 : 200).end();
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/notify`;
      const input = checkout({ notificationUrl: url });
      const session = await client.initiateCheckout(input);
      sim.payOnHostedPage(session.sessionId, { number: '5123450000000008', expiry: '01/39' });
      await sim.notifier.settled();
      assert.equal(seen.length, 2);
      assert.equal(seen[0]['x-notification-id'], seen[1]['x-notification-id']);
      assert.deepEqual(
        seen.map((h) => h['x-notification-attempt']),
        ['1', '2'],
      );
    } finally {
      flaky.close();
    }
  });

  it('nothing logged carries the API password, the Authorization header or a card number', () => {
    const log = logLines.join('\n');
    assert.ok(logLines.length > 10);
    assert.equal(log.includes(sim.apiPassword), false);
    assert.equal(
      log.includes(Buffer.from(`merchant.${sim.merchantId}:${sim.apiPassword}`).toString('base64')),
      false,
    );
    for (const card of ['5123450000000008', '4508750015741019']) assert.equal(log.includes(card), false);
  });
});
