// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import {
  amountOf,
  describeStripeError,
  StripeClient,
  WebhookSecretMissing,
} from '../../../src/payments/providers/stripe/stripe-client';
import { UnchargeableAmount } from '../../../src/payments/providers/stripe/stripe-amounts';
import { HttpReceiver } from '../../sinks/http-receiver';
import { StripeSimulator } from './stripe-simulator';

const SUCCESS = 'https://shop.example/return?session_id={CHECKOUT_SESSION_ID}';
const CANCEL = 'https://shop.example/cancel';

/** Resolves to the error `promise` rejects with; fails when it resolves. */
async function failure(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Stripe.errors.StripeError, `not a StripeError: ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded');
}

/**
 * The Stripe client (src/payments/providers/stripe) against the Stripe simulator: each call the
 * `stripe` driver makes (contract §20), Stripe's errors, idempotency, time limits and webhook
 * signatures. Every request the client sends is validated by the simulator against Stripe's
 * OpenAPI document, so a call that passes here sends what Stripe accepts.
 */
describe('Stripe client against the simulator', () => {
  let sim: StripeSimulator;
  let hooks: HttpReceiver;
  let client: StripeClient;
  let keys = 0;
  const key = (label: string) => `test-${label}-${++keys}-${Date.now()}`;

  before(async () => {
    hooks = await HttpReceiver.start();
    sim = await StripeSimulator.start();
    sim.webhookUrl = hooks.url;
    client = new StripeClient({
      secret_key: sim.secretKey,
      webhook_secret: sim.webhookSecret,
      api_base_url: sim.baseUrl,
      timeout_ms: 3000,
    });
  });
  after(async () => {
    await sim.stop();
    await hooks.stop();
  });

  const newSession = (overrides: Partial<Parameters<StripeClient['createCheckoutSession']>[0]> = {}) =>
    client.createCheckoutSession(
      {
        referenceNumber: `ref-${keys}`,
        amount: '12.340',
        currency: 'KWD',
        productName: 'Order 42',
        successUrl: SUCCESS,
        cancelUrl: CANCEL,
        manualCapture: false,
        ...overrides,
      },
      key('session'),
    );

  it('creates a Checkout Session in mode payment, with the amount in minor units and the reference', async () => {
    const session = await newSession({
      referenceNumber: 'ref-create',
      manualCapture: true,
      metadata: { order: '42' },
    });
    assert.equal(session.object, 'checkout.session');
    assert.equal(session.status, 'open');
    assert.equal(session.mode, 'payment');
    assert.equal(session.amount_total, 12340);
    assert.equal(session.currency, 'kwd');
    assert.equal(session.client_reference_id, 'ref-create');
    assert.deepEqual(session.metadata, { order: '42', reference_number: 'ref-create' });
    assert.equal(session.payment_intent, null, 'no PaymentIntent until the customer pays');
    assert.equal(session.url, `${sim.baseUrl}/c/pay/${session.id}`);

    const sent = sim.apiRequests('PostCheckoutSessions').at(-1)!;
    assert.equal(sent.headers.authorization, `Bearer ${sim.secretKey}`);
    assert.match(String(sent.headers['idempotency-key']), /^test-session-/);
    assert.ok(sent.headers['stripe-version'], 'the SDK pins an API version');
    assert.deepEqual(sent.params?.payment_intent_data, {
      capture_method: 'manual',
      metadata: { order: '42', reference_number: 'ref-create' },
    });
  });

  it('retrieves the session with its PaymentIntent and its PaymentMethod expanded once paid (authorized under manual capture)', async () => {
    const session = await newSession({ manualCapture: true });
    const redirect = sim.pay(session.id).redirect;
    assert.equal(redirect, `https://shop.example/return?session_id=${session.id}`);
    const paid = await client.retrieveCheckoutSession(session.id);
    assert.equal(paid.status, 'complete');
    assert.equal(paid.payment_status, 'unpaid', 'an authorized payment leaves the session unpaid');
    const intent = paid.payment_intent as Stripe.PaymentIntent;
    assert.equal(intent.object, 'payment_intent');
    assert.equal(intent.status, 'requires_capture');
    assert.equal(intent.amount_capturable, 12340);
    assert.equal(amountOf(intent), '12.340');
    const method = intent.payment_method as Stripe.PaymentMethod;
    assert.equal(method.object, 'payment_method');
    assert.equal(method.card?.last4, '4242');
    assert.equal(method.card?.brand, 'visa');
    assert.match(String(method.card?.fingerprint), /^[A-Za-z0-9]{16}$/);
    assert.deepEqual(sim.apiRequests('GetCheckoutSessionsSession').at(-1)!.params, {
      expand: ['payment_intent', 'payment_intent.payment_method'],
    });
  });

  it('captures part of an authorization, then refuses a second capture', async () => {
    const session = await newSession({ manualCapture: true, amount: '20.000' });
    sim.pay(session.id);
    const intentId = (await client.retrieveCheckoutSession(session.id))
      .payment_intent as Stripe.PaymentIntent;
    const captured = await client.capturePaymentIntent(
      intentId.id,
      { amount: '15.500', currency: 'KWD' },
      key('capture'),
    );
    assert.equal(captured.status, 'succeeded');
    assert.equal(captured.amount_received, 15500);
    const again = await failure(client.capturePaymentIntent(intentId.id, null, key('capture')));
    assert.equal(again.type, 'StripeInvalidRequestError');
    assert.equal(again.code, 'payment_intent_unexpected_state');
    assert.equal(describeStripeError(again).kind, 'refused');
  });

  it('cancels (voids) an authorization', async () => {
    const session = await newSession({ manualCapture: true });
    sim.pay(session.id);
    const intent = (await client.retrieveCheckoutSession(session.id)).payment_intent as Stripe.PaymentIntent;
    const canceled = await client.cancelPaymentIntent(intent.id, key('cancel'));
    assert.equal(canceled.status, 'canceled');
    assert.equal((await client.retrievePaymentIntent(intent.id)).status, 'canceled');
  });

  it('refunds part, then the rest, then refuses a refund of a refunded charge', async () => {
    const session = await newSession({ amount: '10.00', currency: 'usd' });
    sim.pay(session.id);
    const intent = (await client.retrieveCheckoutSession(session.id)).payment_intent as Stripe.PaymentIntent;
    assert.equal(intent.status, 'succeeded');
    const partial = await client.createRefund(
      { paymentIntent: intent.id, amount: '2.50', currency: 'USD' },
      key('refund'),
    );
    assert.equal(partial.amount, 250);
    assert.equal(partial.status, 'succeeded');
    assert.equal((await client.retrieveRefund(partial.id)).payment_intent, intent.id);
    const tooMuch = await failure(
      client.createRefund({ paymentIntent: intent.id, amount: '9.00', currency: 'USD' }, key('refund')),
    );
    assert.equal(tooMuch.code, 'amount_too_large');
    const rest = await client.createRefund({ paymentIntent: intent.id }, key('refund'));
    assert.equal(rest.amount, 750);
    const done = await failure(client.createRefund({ paymentIntent: intent.id }, key('refund')));
    assert.equal(done.code, 'charge_already_refunded');
  });

  it('expires an open session, and refuses to expire it twice', async () => {
    const session = await newSession();
    const expired = await client.expireCheckoutSession(session.id, key('expire'));
    assert.equal(expired.status, 'expired');
    assert.equal(expired.url, null);
    const again = await failure(client.expireCheckoutSession(session.id, key('expire')));
    assert.equal(again.type, 'StripeInvalidRequestError');
  });

  it('saves a card on a customer during payment and charges it off-session', async () => {
    const customer = await client.createCustomer({ email: 'buyer@example.com' }, key('customer'));
    assert.match(customer.id, /^cus_/);
    const session = await newSession({
      customer: customer.id,
      saveCard: true,
      amount: '5.00',
      currency: 'usd',
    });
    assert.equal(sim.apiRequests('PostCheckoutSessions').at(-1)!.params?.customer, customer.id);
    sim.pay(session.id);
    const first = (await client.retrieveCheckoutSession(session.id)).payment_intent as Stripe.PaymentIntent;
    assert.equal(first.setup_future_usage, 'off_session');
    const saved = first.payment_method as Stripe.PaymentMethod;
    assert.equal(saved.customer, customer.id, 'attached to the Customer');
    const paymentMethod = saved.id;
    assert.match(paymentMethod, /^pm_/);
    const alone = await client.retrievePaymentIntent(first.id, { withPaymentMethod: true });
    assert.equal((alone.payment_method as Stripe.PaymentMethod).id, paymentMethod);
    assert.deepEqual(sim.apiRequests('GetPaymentIntentsIntent').at(-1)!.params, {
      expand: ['payment_method'],
    });

    const charged = await client.chargeOffSession(
      {
        referenceNumber: 'ref-mit',
        amount: '7.00',
        currency: 'USD',
        customer: customer.id,
        paymentMethod,
        manualCapture: false,
      },
      key('mit'),
    );
    assert.equal(charged.status, 'succeeded');
    assert.equal(charged.amount, 700);
    const sent = sim.apiRequests('PostPaymentIntents').at(-1)!.params!;
    assert.equal(sent.off_session, true);
    assert.equal(sent.confirm, true);
  });

  it('reports an off-session decline as a card error with its decline code', async () => {
    const customer = await client.createCustomer({}, key('customer'));
    const charge = (paymentMethod: string) =>
      client.chargeOffSession(
        {
          referenceNumber: 'ref-decline',
          amount: '7.00',
          currency: 'USD',
          customer: customer.id,
          paymentMethod,
          manualCapture: false,
        },
        key('mit'),
      );
    const declined = await failure(charge('pm_card_chargeDeclinedInsufficientFunds'));
    assert.equal(declined.type, 'StripeCardError');
    assert.equal(declined.statusCode, 402);
    assert.equal(declined.decline_code, 'insufficient_funds');
    assert.deepEqual(
      { kind: describeStripeError(declined).kind, declineCode: describeStripeError(declined).declineCode },
      { kind: 'declined', declineCode: 'insufficient_funds' },
    );
    const authentication = await failure(charge('pm_card_authenticationRequired'));
    assert.equal(authentication.code, 'authentication_required');
  });

  it('finds PaymentIntents by metadata (inquiry)', async () => {
    const session = await newSession({ referenceNumber: "ref-search-o'brien" });
    sim.pay(session.id);
    const found = await client.searchPaymentIntentsByMetadata('reference_number', "ref-search-o'brien");
    assert.equal(found.length, 1);
    assert.equal(found[0].status, 'succeeded');
    assert.deepEqual(await client.searchPaymentIntentsByMetadata('reference_number', 'nothing'), []);
  });

  it('refuses an amount Stripe cannot charge before calling Stripe', async () => {
    const before = sim.requests.length;
    await assert.rejects(newSession({ amount: '12.345', currency: 'KWD' }), (error: unknown) => {
      assert.ok(error instanceof UnchargeableAmount);
      assert.match(error.message, /last of the three decimals must be 0/);
      return true;
    });
    assert.equal(sim.requests.length, before);
  });

  it('is refused with 401 under a wrong secret key, and the key never appears in the error', async () => {
    const wrongKey = 'sk_test_wrong_key_0123456789';
    const stranger = new StripeClient({ secret_key: wrongKey, api_base_url: sim.baseUrl });
    const refused = await failure(stranger.retrievePaymentIntent('pi_nothing'));
    assert.equal(refused.type, 'StripeAuthenticationError');
    assert.equal(refused.statusCode, 401);
    assert.ok(!JSON.stringify(describeStripeError(refused)).includes(wrongKey));
  });

  it('reports an unknown object as resource_missing (404)', async () => {
    const missing = await failure(client.retrievePaymentIntent('pi_does_not_exist'));
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.code, 'resource_missing');
    assert.equal(missing.param, 'intent');
  });

  it('answers the same key and params with the same result, and refuses the key with other params', async () => {
    const idempotencyKey = key('same');
    const input = {
      referenceNumber: 'ref-idem',
      amount: '3.00',
      currency: 'usd',
      productName: 'Order 7',
      successUrl: SUCCESS,
      cancelUrl: CANCEL,
      manualCapture: false,
    };
    const first = await client.createCheckoutSession(input, idempotencyKey);
    const second = await client.createCheckoutSession(input, idempotencyKey);
    assert.equal(second.id, first.id);
    assert.equal(sim.apiRequests('PostCheckoutSessions').at(-1)!.replayed, true);
    const other = await failure(client.createCheckoutSession({ ...input, amount: '4.00' }, idempotencyKey));
    assert.equal(other.type, 'StripeIdempotencyError');
    assert.equal(other.statusCode, 400);
    assert.equal(describeStripeError(other).kind, 'refused');
  });

  it('gives up after timeout_ms; the same key then gets the answer of the call that timed out', async () => {
    const impatient = new StripeClient({
      secret_key: sim.secretKey,
      api_base_url: sim.baseUrl,
      timeout_ms: 300,
    });
    const idempotencyKey = key('slow');
    sim.delayAnswers(1000);
    const started = Date.now();
    const timedOut = await failure(
      impatient.createCheckoutSession(
        {
          referenceNumber: 'ref-slow',
          amount: '3.00',
          currency: 'usd',
          productName: 'Slow',
          successUrl: SUCCESS,
          cancelUrl: CANCEL,
          manualCapture: false,
        },
        idempotencyKey,
      ),
    );
    assert.ok(Date.now() - started < 900, 'the client stopped waiting at its timeout');
    assert.equal(timedOut.type, 'StripeConnectionError');
    assert.equal(describeStripeError(timedOut).kind, 'unknown');
    const created = sim.apiRequests('PostCheckoutSessions').at(-1)!.response as { id: string };
    const retried = await impatient.createCheckoutSession(
      {
        referenceNumber: 'ref-slow',
        amount: '3.00',
        currency: 'usd',
        productName: 'Slow',
        successUrl: SUCCESS,
        cancelUrl: CANCEL,
        manualCapture: false,
      },
      idempotencyKey,
    );
    assert.equal(retried.id, created.id, 'no second session');
  });

  it('gives up on a connection not up within the connect limit (a TLS server that never answers the handshake), long before timeout_ms', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const stuck = new StripeClient(
        { secret_key: sim.secretKey, api_base_url: `https://127.0.0.1:${port}`, timeout_ms: 5000 },
        { connectTimeoutMs: 250 },
      );
      const started = Date.now();
      const error = await failure(stuck.retrieveCheckoutSession('cs_test_never'));
      const took = Date.now() - started;
      assert.equal(error.type, 'StripeConnectionError');
      assert.equal(describeStripeError(error).kind, 'unknown');
      assert.equal(sockets.length, 1, 'one connection tried, no retry');
      assert.ok(took >= 200 && took < 2000, `gave up after ${took} ms, not timeout_ms`);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('does not retry unless told to; retries an idempotent call when told to', async () => {
    const session = await newSession();
    sim.failNext(1);
    const failed = await failure(client.retrieveCheckoutSession(session.id));
    assert.equal(failed.type, 'StripeAPIError');
    assert.equal(describeStripeError(failed).kind, 'unknown');
    sim.failNext(1, 429);
    const limited = await failure(client.retrieveCheckoutSession(session.id));
    assert.equal(limited.type, 'StripeRateLimitError');
    assert.equal(describeStripeError(limited).kind, 'unknown');
    sim.failNext(1);
    const count = sim.requests.length;
    const retried = await client.retrieveCheckoutSession(session.id, { retries: 1 });
    assert.equal(retried.id, session.id);
    assert.equal(sim.requests.length - count, 2);
  });

  describe('webhooks', () => {
    it('verifies the events Stripe sends, signed over the raw body', async () => {
      const session = await newSession({ referenceNumber: 'ref-hook' });
      hooks.received.length = 0;
      sim.pay(session.id);
      await sim.settled();
      const completed = hooks.received.find(
        (r) => (r.json as { type?: string }).type === 'checkout.session.completed',
      );
      assert.ok(completed, 'checkout.session.completed was sent');
      const event = client.verifyWebhook(completed.body, completed.headers['stripe-signature'] as string);
      assert.equal(event.type, 'checkout.session.completed');
      assert.equal(event.data.object.client_reference_id, 'ref-hook');
      const types = hooks.received.map((r) => (r.json as { type: string }).type);
      assert.ok(types.includes('payment_intent.succeeded'), types.join());
    });

    it('refuses a forged, a stale, a tampered and an unsigned notification', () => {
      const event = sim.events.at(-1)!;
      const body = JSON.stringify(event);
      const refuses = (payload: string, header: string | undefined) =>
        assert.throws(
          () => client.verifyWebhook(payload, header),
          Stripe.errors.StripeSignatureVerificationError,
        );
      refuses(body, sim.signature(body, Math.floor(Date.now() / 1000), 'whsec_someone_else'));
      refuses(body, sim.signature(body, Math.floor(Date.now() / 1000) - 301));
      const tampered = body.replace('"livemode":false', '"livemode":true');
      assert.notEqual(tampered, body);
      refuses(tampered, sim.signature(body));
      refuses(body, undefined);
      // within the 300 s tolerance
      assert.equal(
        client.verifyWebhook(body, sim.signature(body, Math.floor(Date.now() / 1000) - 290)).id,
        event.id,
      );
    });

    it('refuses every notification when the gateway has no webhook_secret', () => {
      const noSecret = new StripeClient({ secret_key: sim.secretKey, api_base_url: sim.baseUrl });
      const body = JSON.stringify(sim.events.at(-1));
      assert.throws(() => noSecret.verifyWebhook(body, sim.signature(body)), WebhookSecretMissing);
    });
  });
});
