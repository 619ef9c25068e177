import { createHmac, randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'qs';
import {
  OpenApiRequestValidator,
  type StripeErrorAnswer,
  type ValidRequest,
} from './openapi-request-validator';
import {
  AUTHENTICATION_REQUIRED,
  type CardBehaviour,
  findTestCard,
  TEST_PAYMENT_METHODS,
  type TestCard,
} from './stripe-test-cards';

/**
 * A Stripe simulator for the `stripe` driver's tests (contract §20, "Tested offline"): an HTTP
 * server on 127.0.0.1 that answers like Stripe's API for Checkout Sessions (mode `payment`),
 * PaymentIntents, refunds and customers, serves a hosted payment page, and sends signed webhooks.
 * Built from Stripe's public documentation, cited where each behaviour is implemented; every API
 * request is first validated against openapi-subset.json (Stripe's published OpenAPI document).
 *
 * Test controls are the public methods below the "Test controls" mark.
 */

type Json = Record<string, unknown>;
type StripeObject = Json & { id: string; object: string };

/** A PaymentMethod with what the simulator keeps beside Stripe's object (never shown by the API). */
type SimulatedPaymentMethod = StripeObject & {
  card_number: string;
  setup_for_off_session: boolean;
  /** Set by declineCard: how the issuer answers every later charge. */
  issuer_answer?: CardBehaviour;
};

/** What the hosted page's form says of the card besides its number (expiry "MM / YY", name). */
export interface PageCardDetails {
  expMonth?: number;
  expYear?: number;
  name?: string;
}

/** One request the simulator received, and what it answered. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The decoded params, when the request fitted the OpenAPI document. */
  params?: Json;
  operationId?: string;
  idempotencyKey?: string;
  status: number;
  response: unknown;
  /** The answer is a stored one, sent again for a repeated Idempotency-Key. */
  replayed: boolean;
  /** The request was carried out and its connection closed without an answer (dropAnswers). */
  dropped?: boolean;
  at: number;
}

/** One webhook delivery attempt. */
export interface Delivery {
  eventId: string;
  type: string;
  body: string;
  signature: string;
  /** The endpoint's answer status; 0 when it could not be reached. */
  status: number;
  at: number;
}

export interface SimulatorOptions {
  /** The secret key the API accepts (default: a fresh `sk_test_…`). */
  secretKey?: string;
  /** The webhook endpoint's signing secret (default: a fresh `whsec_…`). */
  webhookSecret?: string;
  /** Where events are posted; none are sent until it is set. */
  webhookUrl?: string | null;
  /** Validate requests against this fixture instead of openapi-subset.json. */
  openapiPath?: string;
}

/** Stripe's error, thrown inside a handler and sent as `{error}` with its status. */
class StripeFailure extends Error {
  constructor(readonly answer: StripeErrorAnswer) {
    super(answer.error.message);
  }
}

const invalid = (message: string, param?: string, code?: string): StripeFailure =>
  new StripeFailure({
    status: 400,
    error: {
      type: 'invalid_request_error',
      message,
      ...(param ? { param } : {}),
      ...(code ? { code, doc_url: `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}` } : {}),
    },
  });

const missing = (kind: string, id: string, param: string): StripeFailure =>
  new StripeFailure({
    status: 404,
    error: {
      type: 'invalid_request_error',
      code: 'resource_missing',
      param,
      message: `No such ${kind}: '${id}'`,
      doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
    },
  });

/**
 * The error Stripe answers with a status (https://docs.stripe.com/api/errors): 401 a key it does
 * not know, 403 a restricted key without the permission, 409 a request that conflicts with another
 * one under the same Idempotency-Key (https://docs.stripe.com/error-codes#idempotency-key-in-use),
 * 429 too many requests (https://docs.stripe.com/rate-limits), otherwise a Stripe-side `api_error`.
 */
function failureBody(status: number): StripeErrorAnswer['error'] {
  switch (status) {
    case 401:
      return {
        type: 'invalid_request_error',
        message: 'Invalid API Key provided: sk_test_********************1234',
      };
    case 403:
      return {
        type: 'invalid_request_error',
        message:
          "The provided key 'rk_test_********************1234' does not have the required permissions for this endpoint.",
      };
    case 409:
      return {
        type: 'invalid_request_error',
        code: 'idempotency_key_in_use',
        message:
          'There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through).',
      };
    case 429:
      return {
        type: 'invalid_request_error',
        code: 'rate_limit',
        message: 'Too many requests hit the API too quickly.',
      };
    default:
      return { type: 'api_error', message: 'An unknown error occurred while processing your request.' };
  }
}

/** Stripe-like ids: a prefix and random alphanumerics. */
function newId(prefix: string, length = 24): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  return prefix + Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

const now = () => Math.floor(Date.now() / 1000);
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** https://docs.stripe.com/currencies: zero-decimal and three-decimal currencies. */
const ZERO_DECIMAL = new Set('bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf'.split(' '));
const THREE_DECIMAL = new Set('bhd jod kwd omr tnd'.split(' '));
const exponentOf = (currency: string) =>
  ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2;

/** Refuses an amount Stripe refuses for its currency (https://docs.stripe.com/currencies#special-cases). */
function checkAmount(amount: number, currency: string, param: string): void {
  if (amount < 1) throw invalid('This value must be greater than or equal to 1.', param);
  if (THREE_DECIMAL.has(currency) && amount % 10 !== 0) {
    throw invalid(
      `Invalid amount: ${currency.toUpperCase()} is a three-decimal currency and its amounts must be rounded to the nearest ten (the last digit must be 0).`,
      param,
    );
  }
  if (currency === 'isk' && amount % 100 !== 0) {
    throw invalid(
      'Invalid amount. Currency ISK has become effectively zero-decimal and charged amounts must be evenly divisible by 100. See https://stripe.com/docs/currencies#special-cases for more information.',
      param,
      'invalid_charge_amount_no_decimal_compatible',
    );
  }
}

function formatAmount(amount: number, currency: string): string {
  const exponent = exponentOf(currency);
  return `${(amount / 10 ** exponent).toFixed(exponent)} ${currency.toUpperCase()}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class StripeSimulator {
  readonly secretKey: string;
  readonly webhookSecret: string;
  webhookUrl: string | null;
  /** Every request received (API and hosted page), oldest first. */
  readonly requests: RecordedRequest[] = [];
  /** Every event created, oldest first. */
  readonly events: StripeObject[] = [];
  /** Every webhook delivery attempt, oldest first. */
  readonly deliveries: Delivery[] = [];
  /** How long each webhook waits before it is sent, in ms. */
  webhookDelayMs = 0;
  /**
   * How far `GET /v1/payment_intents/search` lags behind the PaymentIntents (ms): a PaymentIntent
   * created or changed less than this long ago is not found, or is found as it was. Stripe: "Don't
   * use search for read-after-write flows (for example, searching immediately after a charge is
   * made) because the data won't be immediately available to search. Under normal operating
   * conditions, data is searchable in under 1 minute. Propagation of new or updated data could be
   * more delayed during an outage." (https://docs.stripe.com/search#data-freshness). 0: no lag.
   */
  searchLagMs = 0;
  /**
   * New refunds start `pending` instead of `succeeded`; settleRefund ends them. Stripe: "Refunds
   * can have a status of pending, requires_action, succeeded, failed, or canceled"
   * (https://docs.stripe.com/api/refunds/object#refund_object-status), and a card refund "can
   * fail if the customer's bank or card issuer is unable to process it" (https://docs.stripe.com/refunds#failed-refunds).
   */
  refundsPending = false;

  private server: Server | null = null;
  private port = 0;
  private readonly validator: OpenApiRequestValidator;
  private readonly sessions = new Map<string, StripeObject>();
  private readonly intents = new Map<string, StripeObject>();
  private readonly charges = new Map<string, StripeObject>();
  private readonly refunds = new Map<string, StripeObject>();
  private readonly customers = new Map<string, StripeObject>();
  private readonly paymentMethods = new Map<string, SimulatedPaymentMethod>();
  private readonly idempotent = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  private readonly answerDelays: number[] = [];
  private dropsLeft = 0;
  /** What each PaymentIntent looked like, and since when (ms), as the search index sees it. */
  private readonly searchIndex = new Map<string, { at: number; snapshot: StripeObject }[]>();
  /** The card behind a PaymentIntent waiting for the customer's 3D Secure (`requires_action`). */
  private readonly awaitingAuthentication = new Map<string, { card: TestCard; savedId?: string }>();
  private failuresLeft = 0;
  private failureStatus = 500;
  private holding = false;
  private held: StripeObject[] = [];
  private readonly pending = new Set<Promise<unknown>>();

  private constructor(options: SimulatorOptions) {
    this.secretKey = options.secretKey ?? newId('sk_test_', 32);
    this.webhookSecret = options.webhookSecret ?? newId('whsec_', 32);
    this.webhookUrl = options.webhookUrl ?? null;
    this.validator = new OpenApiRequestValidator(options.openapiPath);
  }

  static async start(options: SimulatorOptions = {}): Promise<StripeSimulator> {
    const simulator = new StripeSimulator(options);
    simulator.server = createServer((req, res) => {
      simulator.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => simulator.server!.listen(0, '127.0.0.1', resolve));
    simulator.port = (simulator.server.address() as AddressInfo).port;
    return simulator;
  }

  /** Where the OpenAPI fixture came from: repository, file, commit and API version. */
  get openapiSource(): Record<string, string> {
    return this.validator.document['x-source'];
  }

  /** The API origin, for the client's `api_base_url`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  // ─── Test controls ──────────────────────────────────────────────────────────────────────────

  /** The next `count` API answers are sent `ms` late (after the request was carried out). */
  delayAnswers(ms: number, count = 1): void {
    for (let i = 0; i < count; i++) this.answerDelays.push(ms);
  }

  /**
   * The next `count` API requests are carried out, then their connection is closed without an
   * answer: the work is done and the answer lost. Stripe: "if a connection error occurs [...] you
   * can safely retry the request with the same idempotency key [...] subsequent requests with the
   * same key return the same result" (https://docs.stripe.com/api/idempotent_requests,
   * https://docs.stripe.com/error-low-level#idempotency). Stripe's Node SDK retries a closed
   * connection once by itself, with the same key: two drops lose the answer for the caller.
   */
  dropAnswers(count = 1): void {
    this.dropsLeft += count;
  }

  /**
   * The next `count` API requests fail with `status` (500 by default) before anything is done, with
   * the error Stripe answers for it (401, 403, 409, 429 or a Stripe-side 5xx).
   */
  failNext(count: number, status = 500): void {
    this.failuresLeft = count;
    this.failureStatus = status;
  }

  /** API requests received for `operationId` (e.g. `PostCheckoutSessions`), or all of them. */
  apiRequests(operationId?: string): RecordedRequest[] {
    return this.requests.filter(
      (r) => r.path.startsWith('/v1/') && (!operationId || r.operationId === operationId),
    );
  }

  session(id: string): StripeObject | undefined {
    return this.sessions.get(id);
  }

  paymentIntent(id: string): StripeObject | undefined {
    return this.intents.get(id);
  }

  /**
   * Puts a PaymentIntent in `status`, with its amounts to match (what Stripe's Dashboard or time
   * would do), and sends the matching event unless `notify` is false.
   */
  setPaymentIntentStatus(id: string, status: string, notify = true): StripeObject {
    const intent = this.intents.get(id);
    if (!intent) throw new Error(`no PaymentIntent ${id}`);
    const amount = intent.amount as number;
    intent.status = status;
    intent.amount_capturable = status === 'requires_capture' ? amount : 0;
    intent.amount_received = status === 'succeeded' ? amount : 0;
    if (status === 'canceled') intent.canceled_at = now();
    this.indexForSearch(intent);
    const event = {
      succeeded: 'payment_intent.succeeded',
      requires_capture: 'payment_intent.amount_capturable_updated',
      canceled: 'payment_intent.canceled',
      processing: 'payment_intent.processing',
      requires_payment_method: 'payment_intent.payment_failed',
    }[status];
    if (notify && event) this.emit(event, intent);
    return intent;
  }

  /**
   * Pays an open session as the hosted page does when the customer submits `cardNumber`; returns
   * where the browser would be sent (the success URL), or the decline message.
   */
  pay(
    sessionId: string,
    cardNumber = '4242424242424242',
    details: PageCardDetails = {},
  ): { redirect?: string; error?: string } {
    const session = this.openSession(sessionId);
    return this.payOnPage(session, findTestCard(cardNumber), true, details);
  }

  /** A Customer as Stripe keeps it. */
  customer(id: string): StripeObject | undefined {
    return this.customers.get(id);
  }

  /** The PaymentMethods attached to a Customer, as the API shows them (no card number). */
  paymentMethodsOf(customer: string): StripeObject[] {
    return [...this.paymentMethods.values()]
      .filter((pm) => pm.customer === customer)
      .map((pm) => this.publicPaymentMethod(pm.id)!);
  }

  /**
   * From now on the issuer declines every charge of this saved PaymentMethod with `declineCode`
   * (a card that paid once, then ran out of funds or was blocked).
   */
  declineCard(paymentMethodId: string, declineCode = 'insufficient_funds'): void {
    const pm = this.paymentMethods.get(paymentMethodId);
    if (!pm) throw new Error(`No PaymentMethod ${paymentMethodId}`);
    pm.issuer_answer = {
      kind: 'decline',
      code: 'card_declined',
      declineCode,
      message:
        declineCode === 'insufficient_funds'
          ? 'Your card has insufficient funds.'
          : 'Your card was declined.',
    };
  }

  /** Every PaymentIntent carrying metadata[reference_number] = `reference`. */
  intentsWithReference(reference: string): StripeObject[] {
    return [...this.intents.values()]
      .filter((intent) => (intent.metadata as Json).reference_number === reference)
      .map((intent) => clone(intent));
  }

  /** A refund as Stripe keeps it. */
  refund(id: string): StripeObject | undefined {
    const refund = this.refunds.get(id);
    return refund ? clone(refund) : undefined;
  }

  /** The refunds of a PaymentIntent, oldest first. */
  refundsOf(paymentIntent: string): StripeObject[] {
    return [...this.refunds.values()].filter((r) => r.payment_intent === paymentIntent).map((r) => clone(r));
  }

  /**
   * Ends a `pending` refund (https://docs.stripe.com/api/refunds/object#refund_object-status):
   * `succeeded`, or `failed` / `canceled`, when the amount goes back to the merchant's balance and
   * off the charge's `amount_refunded` (https://docs.stripe.com/refunds#failed-refunds), with
   * `failure_reason`. A `succeeded` card refund may also fail later (the test card
   * 4000 0000 0000 5126, https://docs.stripe.com/testing#refunds). Sends `refund.updated`, and
   * `refund.failed` for a failed one (https://docs.stripe.com/api/events/types#event_types-refund.updated).
   */
  settleRefund(
    id: string,
    status: 'succeeded' | 'failed' | 'canceled',
    failureReason = 'expired_or_canceled_card',
  ): StripeObject {
    const refund = this.refunds.get(id);
    if (!refund) throw new Error(`no refund ${id}`);
    const laterFailure = refund.status === 'succeeded' && status === 'failed';
    if (refund.status !== 'pending' && !laterFailure)
      throw new Error(`refund ${id} is ${String(refund.status)}`);
    refund.status = status;
    if (status !== 'succeeded') {
      if (status === 'failed') refund.failure_reason = failureReason;
      const charge = this.charges.get(refund.charge as string)!;
      charge.amount_refunded = (charge.amount_refunded as number) - (refund.amount as number);
      charge.refunded = false;
    }
    this.emit('refund.updated', refund);
    if (status === 'failed') this.emit('refund.failed', refund);
    return clone(refund);
  }

  /**
   * The customer on the 3D Secure page of a customer-present PaymentIntent (`requires_action`,
   * `next_action.redirect_to_url`): completes or fails the authentication, as the bank's page
   * does, and is sent to the `return_url` with `payment_intent`, `payment_intent_client_secret` and
   * `redirect_status` (https://docs.stripe.com/payments/3d-secure/authentication-flow#manual-redirect).
   * Returns where the browser goes.
   */
  authenticate(paymentIntent: string, outcome: 'complete' | 'fail'): string {
    return this.finishAuthentication(this.findIntent(paymentIntent), outcome);
  }

  /**
   * The customer pays an open session with a US bank account (ACH Direct Debit), when the session
   * offers it: Stripe's dynamic payment methods offer it to a USD session that does not restrict
   * `payment_method_types` (https://docs.stripe.com/payments/payment-methods/dynamic-payment-methods).
   * It is a delayed notification method: the session completes with `payment_status: unpaid` and
   * the PaymentIntent `processing`, for up to 4 business days
   * (https://docs.stripe.com/payments/ach-direct-debit, https://docs.stripe.com/checkout/fulfillment#delayed-notification);
   * settleDelayedPayment ends it.
   */
  payWithBankAccount(sessionId: string): { redirect?: string; error?: string } {
    const session = this.openSession(sessionId);
    if (session.status !== 'open') return { error: `This Checkout Session is ${String(session.status)}.` };
    if (!(session.payment_method_types as string[]).includes('us_bank_account'))
      return { error: 'This payment method is not available for this Checkout Session.' };
    const intent = this.intentOfSession(session);
    const pm: SimulatedPaymentMethod = {
      id: newId('pm_1'),
      object: 'payment_method',
      billing_details: { address: null, email: null, name: null, phone: null },
      created: now(),
      customer: null,
      livemode: false,
      type: 'us_bank_account',
      us_bank_account: { bank_name: 'STRIPE TEST BANK', last4: '6789', account_type: 'checking' },
      card_number: '',
      setup_for_off_session: false,
    };
    this.paymentMethods.set(pm.id, pm);
    intent.payment_method = pm.id;
    intent.status = 'processing';
    this.emit('payment_intent.processing', intent);
    session.status = 'complete';
    session.url = null;
    session.payment_status = 'unpaid';
    this.emit('checkout.session.completed', this.publicSession(session));
    return { redirect: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', String(session.id)) };
  }

  /**
   * Ends a delayed bank payment: `checkout.session.async_payment_succeeded` or `…_failed`
   * (https://docs.stripe.com/checkout/fulfillment#delayed-notification).
   */
  settleDelayedPayment(sessionId: string, outcome: 'succeeded' | 'failed'): void {
    const session = this.sessions.get(sessionId);
    const intent = session?.payment_intent ? this.intents.get(session.payment_intent as string) : undefined;
    if (!session || !intent || intent.status !== 'processing')
      throw new Error(`no delayed payment on ${sessionId}`);
    if (outcome === 'succeeded') {
      intent.status = 'succeeded';
      intent.amount_received = intent.amount;
      session.payment_status = 'paid';
      this.emit('payment_intent.succeeded', intent);
      this.emit('checkout.session.async_payment_succeeded', this.publicSession(session));
    } else {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = {
        type: 'invalid_request_error',
        code: 'payment_method_provider_decline',
        message: 'The payment was declined by the bank.',
      };
      this.emit('payment_intent.payment_failed', intent);
      this.emit('checkout.session.async_payment_failed', this.publicSession(session));
    }
  }

  /**
   * The money Stripe took: every charge that went through (`status: succeeded`), with the reference
   * its PaymentIntent carries (`metadata[reference_number]`), for the suites' money audit.
   */
  ledger(): {
    charge: string;
    paymentIntent: string;
    reference: string | null;
    amount: number;
    currency: string;
    captured: boolean;
    amountRefunded: number;
  }[] {
    return [...this.charges.values()]
      .filter((charge) => charge.status === 'succeeded')
      .map((charge) => ({
        charge: charge.id,
        paymentIntent: charge.payment_intent as string,
        reference:
          ((this.intents.get(charge.payment_intent as string)?.metadata as Json | undefined)
            ?.reference_number as string | undefined) ?? null,
        amount: charge.amount as number,
        currency: charge.currency as string,
        captured: charge.captured as boolean,
        amountRefunded: charge.amount_refunded as number,
      }));
  }

  /** Events are queued instead of sent, until releaseWebhooks. */
  holdWebhooks(): void {
    this.holding = true;
  }

  /**
   * Sends the queued events, in order, reversed, or each twice; later events are sent at once again.
   */
  async releaseWebhooks(options: { reverse?: boolean; duplicate?: boolean } = {}): Promise<Delivery[]> {
    this.holding = false;
    const queue = options.reverse ? [...this.held].reverse() : [...this.held];
    this.held = [];
    const deliveries: Delivery[] = [];
    for (const event of queue) {
      deliveries.push(await this.deliver(event));
      if (options.duplicate) deliveries.push(await this.deliver(event));
    }
    return deliveries;
  }

  /** Sends an event again (same id and payload, as Stripe's retries and "Resend" do), newly signed. */
  replayEvent(eventId: string, options: { timestamp?: number } = {}): Promise<Delivery> {
    const event = this.events.find((e) => e.id === eventId);
    if (!event) throw new Error(`no event ${eventId}`);
    return this.deliver(event, options);
  }

  /**
   * Sends a recorded event to `url` instead of `webhookUrl`, newly signed: Stripe's one endpoint
   * reached through a load balancer that picks a replica. The Galera cluster tests send the same
   * event to two replicas at once, as Stripe's retry of a delivery whose answer was lost would
   * (https://docs.stripe.com/webhooks#retries, https://docs.stripe.com/webhooks#handle-duplicate-events).
   */
  deliverEvent(eventId: string, url: string): Promise<Delivery> {
    const event = this.events.find((e) => e.id === eventId);
    if (!event) throw new Error(`no event ${eventId}`);
    return this.deliver(event, { url });
  }

  /**
   * Sends an event that Stripe did not send: made here of `type` and `object` (or given whole),
   * signed with `secret` (default: a wrong one), or with `timestamp` (e.g. a stale one), or with a
   * literal `signature` header. The event is not recorded in `events`.
   */
  sendForgedEvent(
    event: { type: string; object: Json | null } | StripeObject,
    options: { secret?: string; timestamp?: number; signature?: string } = {},
  ): Promise<Delivery> {
    const full =
      'object' in event && event.object === 'event'
        ? (event as StripeObject)
        : this.makeEvent(event.type as string, event.object as Json | null);
    return this.deliver(full, { secret: options.secret ?? newId('whsec_', 32), ...options });
  }

  /** The `Stripe-Signature` header Stripe would send for `payload` at `timestamp`. */
  signature(payload: string, timestamp = now(), secret = this.webhookSecret): string {
    const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
    return `t=${timestamp},v1=${v1}`;
  }

  /** Resolves once every webhook sent so far has been answered. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  // ─── HTTP ───────────────────────────────────────────────────────────────────────────────────

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const body = await readBody(req);
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search.slice(1),
      headers: req.headers,
      body,
      status: 0,
      response: undefined,
      replayed: false,
      at: Date.now(),
    };
    this.requests.push(record);
    if (url.pathname.startsWith('/c/pay/')) return this.hostedPage(record, res);
    if (url.pathname.startsWith('/3ds/')) return this.authenticationPage(record, res);
    await this.api(record, req, res);
  }

  /** https://docs.stripe.com/api: auth, validation, idempotency, then the operation. */
  private async api(record: RecordedRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const delay = this.answerDelays.shift() ?? 0;
    const drop = this.dropsLeft > 0;
    if (drop) this.dropsLeft--;
    const answer = async (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      record.response = payload;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (drop) {
        record.dropped = true;
        res.socket?.destroy();
        return;
      }
      if (res.destroyed) return;
      res.writeHead(status, {
        'Content-Type': 'application/json',
        'Request-Id': newId('req_', 14),
        'Stripe-Version': String(req.headers['stripe-version'] ?? this.validator.document.info.version),
        ...headers,
      });
      res.end(JSON.stringify(payload));
    };
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      return answer(this.failureStatus, { error: failureBody(this.failureStatus) });
    }
    // https://docs.stripe.com/api/authentication: the key as a Bearer token or as the Basic user.
    const auth = String(req.headers.authorization ?? '');
    const key = auth.startsWith('Bearer ')
      ? auth.slice(7)
      : auth.startsWith('Basic ')
        ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0]
        : '';
    if (key !== this.secretKey) {
      const masked = key
        ? `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`
        : '';
      return answer(401, {
        error: {
          type: 'invalid_request_error',
          message: key
            ? `Invalid API Key provided: ${masked}`
            : "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        },
      });
    }
    const checked = this.validator.check(record.method, record.path, record.query, record.body);
    if ('status' in checked) return answer(checked.status, { error: checked.error });
    record.params = checked.params;
    record.operationId = checked.operationId;

    // https://docs.stripe.com/api/idempotent_requests: POSTs with a key answer the same each time;
    // the key with other params → idempotency_error. Requests refused by validation are not stored.
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    record.idempotencyKey = idempotencyKey;
    const fingerprint = JSON.stringify([record.method, record.path, checked.params]);
    if (record.method === 'POST' && idempotencyKey) {
      const stored = this.idempotent.get(idempotencyKey);
      if (stored) {
        if (stored.fingerprint !== fingerprint) {
          return answer(400, {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          });
        }
        record.replayed = true;
        return answer(stored.status, stored.body, {
          'Idempotent-Replayed': 'true',
          'Idempotency-Key': idempotencyKey,
        });
      }
    }
    let status = 200;
    let payload: unknown;
    try {
      payload = this.operate(checked);
    } catch (error) {
      if (!(error instanceof StripeFailure)) throw error;
      status = error.answer.status;
      payload = { error: error.answer.error };
    }
    if (record.method === 'POST' && idempotencyKey) {
      this.idempotent.set(idempotencyKey, { fingerprint, status, body: payload });
    }
    return answer(status, payload, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {});
  }

  private operate(request: ValidRequest): unknown {
    const p = request.params;
    const id = Object.values(request.pathParams)[0];
    switch (request.operationId) {
      case 'PostCheckoutSessions':
        return this.createSession(p);
      case 'GetCheckoutSessionsSession':
        return this.expand(this.findSession(id), p.expand as string[] | undefined);
      case 'PostCheckoutSessionsSessionExpire':
        return this.expireSession(id);
      case 'PostCustomers':
        return this.createCustomer(p);
      case 'PostPaymentIntents':
        return this.createIntent(p);
      case 'GetPaymentIntentsIntent':
        return this.expand(this.findIntent(id), p.expand as string[] | undefined);
      case 'PostPaymentIntentsIntentCapture':
        return this.capture(id, p);
      case 'PostPaymentIntentsIntentCancel':
        return this.cancel(id, p);
      case 'GetPaymentIntentsSearch':
        return this.search(p);
      case 'PostRefunds':
        return this.createRefund(p);
      case 'GetRefunds':
        return this.listRefunds(p);
      case 'GetRefundsRefund': {
        const refund = this.refunds.get(id);
        if (!refund) throw missing('refund', id, 'refund');
        return this.expand(refund, p.expand as string[] | undefined);
      }
      default:
        throw invalid(`The simulator does not serve ${request.operationId}.`);
    }
  }

  /** https://docs.stripe.com/api/expanding_objects: ids replaced by their objects, dotted paths too. */
  private expand(object: StripeObject, paths: string[] = []): StripeObject {
    const copy = clone(object);
    for (const path of paths) {
      const [field, ...rest] = path.split('.');
      const value = copy[field];
      // `a` and `a.b` together: `a` is already an object when `a.b` comes
      if (value && typeof value === 'object' && rest.length) {
        copy[field] = this.expand(value as StripeObject, [rest.join('.')]);
        continue;
      }
      if (typeof value !== 'string') continue;
      const found = this.lookup(value);
      if (found) copy[field] = rest.length ? this.expand(found, [rest.join('.')]) : clone(found);
    }
    return copy;
  }

  private lookup(id: string): StripeObject | undefined {
    return (
      this.intents.get(id) ??
      this.charges.get(id) ??
      this.customers.get(id) ??
      this.sessions.get(id) ??
      this.refunds.get(id) ??
      this.publicPaymentMethod(id)
    );
  }

  // ─── Checkout Sessions (https://docs.stripe.com/api/checkout/sessions) ────────────────────────

  private createSession(p: Json): StripeObject {
    if (p.mode !== 'payment')
      throw invalid('The simulator serves Checkout Sessions in mode `payment` only.', 'mode');
    const items = (p.line_items as Json[] | undefined) ?? [];
    if (items.length === 0) {
      throw invalid('line_items is required in `payment` mode.', 'line_items', 'parameter_missing');
    }
    let currency = p.currency as string | undefined;
    let total = 0;
    items.forEach((item, i) => {
      const data = item.price_data as Json | undefined;
      if (!data) throw missing('price', String(item.price), `line_items[${i}][price]`);
      if (data.unit_amount === undefined) {
        throw invalid(
          'Missing required param: line_items[0][price_data][unit_amount].',
          `line_items[${i}][price_data][unit_amount]`,
          'parameter_missing',
        );
      }
      if (!(data.product_data as Json | undefined)?.name && !data.product) {
        throw invalid(
          'You must specify either `product` or `product_data` when creating a price.',
          `line_items[${i}][price_data]`,
        );
      }
      const quantity = (item.quantity as number | undefined) ?? 1;
      const itemCurrency = String(data.currency).toLowerCase();
      if (currency && currency !== itemCurrency) {
        throw invalid(
          'All line items must have the same currency.',
          `line_items[${i}][price_data][currency]`,
        );
      }
      currency = itemCurrency;
      checkAmount(data.unit_amount as number, itemCurrency, `line_items[${i}][price_data][unit_amount]`);
      total += (data.unit_amount as number) * quantity;
    });
    if (p.customer && !this.customers.has(p.customer as string))
      throw missing('customer', p.customer as string, 'customer');
    const created = now();
    const expiresAt = (p.expires_at as number | undefined) ?? created + 24 * 3600;
    if (expiresAt < created + 30 * 60 - 5 || expiresAt > created + 24 * 3600 + 5) {
      throw invalid(
        'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.',
        'expires_at',
      );
    }
    const id = newId('cs_test_a1', 56);
    const session: StripeObject = {
      id,
      object: 'checkout.session',
      amount_subtotal: total,
      amount_total: total,
      cancel_url: p.cancel_url ?? null,
      client_reference_id: p.client_reference_id ?? null,
      created,
      currency,
      customer: p.customer ?? null,
      customer_details: null,
      customer_email: p.customer_email ?? null,
      expires_at: expiresAt,
      livemode: false,
      metadata: p.metadata ?? {},
      mode: 'payment',
      payment_intent: null,
      // https://docs.stripe.com/api/checkout/sessions/create: `allowed_payment_method_types` filters
      // the dynamically eligible methods (the API version the SDK pins; openapi-overlay.json).
      allowed_payment_method_types: p.allowed_payment_method_types ?? null,
      payment_method_types: dynamicMethods(currency!).filter(
        (type) =>
          !p.allowed_payment_method_types || (p.allowed_payment_method_types as string[]).includes(type),
      ),
      payment_status: 'unpaid',
      status: 'open',
      success_url: p.success_url,
      url: `${this.baseUrl}/c/pay/${id}`,
      // not part of Stripe's object: what the PaymentIntent is made of when the customer pays
      _payment_intent_data: p.payment_intent_data ?? {},
      _line_items: items,
    };
    this.sessions.set(id, session);
    return this.publicSession(session);
  }

  private publicSession(session: StripeObject): StripeObject {
    const copy = clone(session);
    delete copy._payment_intent_data;
    delete copy._line_items;
    return copy;
  }

  private findSession(id: string): StripeObject {
    const session = this.sessions.get(id);
    if (!session) throw missing('checkout.session', id, 'session');
    if (session.status === 'open' && (session.expires_at as number) < now()) this.expire(session);
    return this.publicSession(session);
  }

  private openSession(id: string): StripeObject {
    this.findSession(id);
    return this.sessions.get(id)!;
  }

  /** https://docs.stripe.com/api/checkout/sessions/expire: only an open session can be expired. */
  private expireSession(id: string): StripeObject {
    const session = this.openSession(id);
    if (session.status !== 'open') {
      throw invalid(
        `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(session.status)}".`,
      );
    }
    this.expire(session);
    return this.publicSession(session);
  }

  private expire(session: StripeObject): void {
    session.status = 'expired';
    session.url = null;
    const intentId = session.payment_intent as string | null;
    const intent = intentId ? this.intents.get(intentId) : undefined;
    if (intent && intent.status === 'requires_payment_method') {
      intent.status = 'canceled';
      intent.canceled_at = now();
      intent.cancellation_reason = 'abandoned';
    }
    this.emit('checkout.session.expired', this.publicSession(session));
  }

  /**
   * The customer submits a card on the hosted page. The PaymentIntent is created on the first try
   * (https://docs.stripe.com/upgrades#2022-08-01: sessions no longer create it up front).
   */
  private payOnPage(
    session: StripeObject,
    card: TestCard,
    authenticated: boolean,
    details: PageCardDetails = {},
  ): { redirect?: string; error?: string } {
    if (session.status !== 'open') return { error: `This Checkout Session is ${String(session.status)}.` };
    if (!(session.payment_method_types as string[]).includes('card'))
      return { error: 'This payment method is not available for this Checkout Session.' };
    const intent = this.intentOfSession(session);
    if (card.behaviour.kind === 'authenticate' && !authenticated)
      return { redirect: `${this.baseUrl}/c/pay/${String(session.id)}/authenticate?card=${card.number}` };
    const outcome = this.charge(intent, card, false, undefined, details);
    if (outcome) return { error: outcome.message };
    if (intent.setup_future_usage && !session.customer) {
      const customer = this.createCustomer({ email: session.customer_email ?? undefined });
      session.customer = customer.id;
      intent.customer = customer.id;
      this.paymentMethods.get(intent.payment_method as string)!.customer = customer.id;
    }
    session.status = 'complete';
    session.url = null;
    // with manual capture the session completes while the payment is only authorized (unpaid)
    session.payment_status = intent.status === 'succeeded' ? 'paid' : 'unpaid';
    session.customer_details = { email: session.customer_email ?? 'customer@example.com' };
    this.emit('checkout.session.completed', this.publicSession(session));
    return { redirect: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', String(session.id)) };
  }

  /**
   * The session's PaymentIntent, made on the customer's first try
   * (https://docs.stripe.com/upgrades#2022-08-01: sessions no longer create it up front).
   */
  private intentOfSession(session: StripeObject): StripeObject {
    const existing = session.payment_intent ? this.intents.get(session.payment_intent as string) : undefined;
    if (existing) return existing;
    const data = session._payment_intent_data as Json;
    const intent = this.newIntent({
      amount: session.amount_total,
      currency: session.currency,
      capture_method: data.capture_method ?? 'automatic',
      setup_future_usage: data.setup_future_usage ?? null,
      metadata: data.metadata ?? {},
      description: data.description ?? null,
      customer: session.customer ?? null,
      payment_method_types: session.payment_method_types,
    });
    session.payment_intent = intent.id;
    return intent;
  }

  // ─── PaymentIntents (https://docs.stripe.com/api/payment_intents) ─────────────────────────────

  private newIntent(fields: Json): StripeObject {
    const id = newId('pi_3');
    const intent: StripeObject = {
      id,
      object: 'payment_intent',
      amount: fields.amount,
      amount_capturable: 0,
      amount_received: 0,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: fields.capture_method ?? 'automatic_async',
      client_secret: `${id}_secret_${newId('', 25)}`,
      confirmation_method: 'automatic',
      created: now(),
      currency: fields.currency,
      customer: fields.customer ?? null,
      description: fields.description ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: fields.metadata ?? {},
      next_action: null,
      payment_method: null,
      payment_method_types: fields.payment_method_types ?? ['card'],
      setup_future_usage: fields.setup_future_usage ?? null,
      status: 'requires_payment_method',
    };
    this.intents.set(id, intent);
    this.emit('payment_intent.created', intent);
    return intent;
  }

  /**
   * Charges `card` for `intent`; null when it went through, else the decline (the intent goes
   * back to requires_payment_method with last_payment_error, https://docs.stripe.com/declines).
   */
  private charge(
    intent: StripeObject,
    card: TestCard,
    offSession: boolean,
    paymentMethodId?: string,
    details: PageCardDetails = {},
  ) {
    const pm = paymentMethodId ? this.paymentMethods.get(paymentMethodId) : undefined;
    const paymentMethod =
      pm ?? this.newPaymentMethod(card, (intent.customer as string | null) ?? null, details);
    intent.payment_method = paymentMethod.id;
    let behaviour: CardBehaviour = pm?.issuer_answer ?? card.behaviour;
    if (behaviour.kind === 'authenticate') {
      const setUp = Boolean(pm?.setup_for_off_session);
      behaviour =
        offSession && !(setUp && behaviour.offSessionAfterSetup === 'success')
          ? AUTHENTICATION_REQUIRED
          : { kind: 'success' };
    }
    const manual = intent.capture_method === 'manual';
    const charge: StripeObject = {
      id: newId('ch_3'),
      object: 'charge',
      amount: intent.amount,
      amount_captured: 0,
      amount_refunded: 0,
      captured: false,
      created: now(),
      currency: intent.currency,
      customer: intent.customer,
      failure_code: null,
      failure_message: null,
      livemode: false,
      metadata: intent.metadata,
      outcome: null,
      paid: false,
      payment_intent: intent.id,
      payment_method: paymentMethod.id,
      payment_method_details: { type: 'card', card: paymentMethod.card },
      refunded: false,
      status: 'pending',
    };
    this.charges.set(charge.id, charge);
    intent.latest_charge = charge.id;
    if (behaviour.kind === 'decline') {
      Object.assign(charge, {
        status: 'failed',
        failure_code: behaviour.code,
        failure_message: behaviour.message,
        outcome: {
          type: 'issuer_declined',
          reason: behaviour.declineCode,
          network_status: 'declined_by_network',
        },
      });
      intent.status = 'requires_payment_method';
      intent.last_payment_error = {
        type: 'card_error',
        code: behaviour.code,
        decline_code: behaviour.declineCode,
        message: behaviour.message,
        charge: charge.id,
        doc_url: `https://stripe.com/docs/error-codes/${behaviour.code.replace(/_/g, '-')}`,
        payment_method: this.publicPaymentMethod(paymentMethod.id),
      };
      this.emit('charge.failed', charge);
      this.emit('payment_intent.payment_failed', intent);
      return behaviour;
    }
    intent.last_payment_error = null;
    Object.assign(charge, {
      status: 'succeeded',
      paid: true,
      captured: !manual,
      amount_captured: manual ? 0 : intent.amount,
      outcome: { type: 'authorized', network_status: 'approved_by_network', reason: null },
    });
    if (intent.setup_future_usage === 'off_session') paymentMethod.setup_for_off_session = true;
    this.emit('charge.succeeded', charge);
    if (manual) {
      intent.status = 'requires_capture';
      intent.amount_capturable = intent.amount;
      this.emit('payment_intent.amount_capturable_updated', intent);
    } else {
      intent.status = 'succeeded';
      intent.amount_received = intent.amount;
      this.emit('payment_intent.succeeded', intent);
    }
    return null;
  }

  /**
   * The end of the 3D Secure page of a PaymentIntent in `requires_action`: charged once
   * authenticated (the issuer may still decline), or back to `requires_payment_method` with
   * `payment_intent_authentication_failure` (https://docs.stripe.com/payments/3d-secure/authentication-flow);
   * the browser then goes to `return_url` with `payment_intent`, `payment_intent_client_secret` and
   * `redirect_status`.
   */
  private finishAuthentication(intent: StripeObject, outcome: 'complete' | 'fail'): string {
    const waiting = this.awaitingAuthentication.get(intent.id);
    const next = intent.next_action as Json | null;
    const returnUrl = (next?.redirect_to_url as Json | undefined)?.return_url as string | undefined;
    if (!waiting || intent.status !== 'requires_action' || !returnUrl)
      throw new Error(`PaymentIntent ${intent.id} is not waiting for a 3D Secure redirect`);
    this.awaitingAuthentication.delete(intent.id);
    intent.next_action = null;
    if (outcome === 'complete') {
      this.charge(intent, waiting.card, false, waiting.savedId);
    } else {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = {
        type: 'invalid_request_error',
        code: 'payment_intent_authentication_failure',
        message:
          'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
        payment_method: this.publicPaymentMethod(intent.payment_method as string),
      };
      this.emit('payment_intent.payment_failed', intent);
    }
    const back = new URL(returnUrl);
    back.searchParams.set('payment_intent', intent.id);
    back.searchParams.set('payment_intent_client_secret', intent.client_secret as string);
    back.searchParams.set(
      'redirect_status',
      intent.status === 'succeeded' || intent.status === 'requires_capture' ? 'succeeded' : 'failed',
    );
    return back.toString();
  }

  private findIntent(id: string): StripeObject {
    const intent = this.intents.get(id);
    if (!intent) throw missing('payment_intent', id, 'intent');
    return intent;
  }

  /**
   * https://docs.stripe.com/api/payment_intents/create with confirm=true and off_session=true
   * (https://docs.stripe.com/payments/save-and-reuse#charge-saved-payment-method): a decline is a
   * 402 card_error that carries the PaymentIntent; a card that asks for authentication is declined
   * `authentication_required` (Stripe cannot ask a customer who is not there).
   *
   * With the customer present (`off_session` false or left out), such a card is not declined: the
   * PaymentIntent goes `requires_action`, and with a `return_url` its `next_action` is
   * `redirect_to_url` (the bank's 3D Secure page, then back to `return_url`); without one it is
   * `use_stripe_sdk`, for Stripe.js to show in the page
   * (https://docs.stripe.com/payments/3d-secure/authentication-flow#manual-redirect,
   * https://docs.stripe.com/api/payment_intents/object#payment_intent_object-next_action).
   */
  private createIntent(p: Json): StripeObject {
    const currency = String(p.currency).toLowerCase();
    checkAmount(p.amount as number, currency, 'amount');
    if (p.customer && !this.customers.has(p.customer as string))
      throw missing('customer', p.customer as string, 'customer');
    const pmId = p.payment_method as string | undefined;
    if (p.off_session !== undefined && p.off_session !== false && !p.confirm) {
      // https://docs.stripe.com/api/payment_intents/create#create_payment_intent-off_session
      throw invalid('off_session can only be used when confirm=true.', 'off_session');
    }
    if (p.return_url !== undefined && !p.confirm) {
      // https://docs.stripe.com/api/payment_intents/create#create_payment_intent-return_url
      throw invalid('return_url can only be used when confirm=true.', 'return_url');
    }
    let card: TestCard | undefined;
    let savedId: string | undefined;
    if (pmId) {
      const saved = this.paymentMethods.get(pmId);
      if (saved) {
        if (p.customer && saved.customer !== p.customer) {
          throw invalid(
            `The provided PaymentMethod ${pmId} does not belong to the Customer ${p.customer as string}.`,
            'payment_method',
          );
        }
        card = findTestCard(saved.card_number);
        savedId = pmId;
      } else if (TEST_PAYMENT_METHODS[pmId]) {
        card = findTestCard(TEST_PAYMENT_METHODS[pmId]);
      } else {
        throw missing('PaymentMethod', pmId, 'payment_method');
      }
    }
    const intent = this.newIntent({
      amount: p.amount,
      currency,
      capture_method: p.capture_method ?? 'automatic_async',
      setup_future_usage: p.setup_future_usage ?? null,
      metadata: p.metadata ?? {},
      description: p.description ?? null,
      customer: p.customer ?? null,
      payment_method_types: p.allowed_payment_method_types,
    });
    if (!p.confirm) {
      if (card) {
        intent.status = 'requires_confirmation';
        intent.payment_method = savedId ?? pmId;
      }
      return clone(intent);
    }
    if (!card)
      throw invalid(
        "You cannot confirm this PaymentIntent because it's missing a payment method.",
        'payment_method',
        'payment_intent_unexpected_state',
      );
    const offSession = p.off_session !== undefined && p.off_session !== false;
    const issuerAnswer = savedId ? this.paymentMethods.get(savedId)!.issuer_answer : undefined;
    if (!offSession && !issuerAnswer && card.behaviour.kind === 'authenticate') {
      intent.payment_method =
        savedId ?? this.newPaymentMethod(card, (p.customer as string | undefined) ?? null).id;
      intent.status = 'requires_action';
      const page = `${this.baseUrl}/3ds/${intent.id}`;
      intent.next_action = p.return_url
        ? { type: 'redirect_to_url', redirect_to_url: { url: page, return_url: p.return_url } }
        : { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: page } };
      this.awaitingAuthentication.set(intent.id, { card, savedId: intent.payment_method as string });
      this.emit('payment_intent.requires_action', intent);
      return clone(intent);
    }
    const decline = this.charge(intent, card, offSession, savedId);
    if (decline && decline.kind === 'decline') {
      throw new StripeFailure({
        status: 402,
        error: {
          ...(intent.last_payment_error as StripeErrorAnswer['error']),
          payment_intent: clone(intent),
        } as StripeErrorAnswer['error'],
      });
    }
    return clone(intent);
  }

  /** https://docs.stripe.com/api/payment_intents/capture, https://docs.stripe.com/payments/place-a-hold-on-a-payment-method */
  private capture(id: string, p: Json): StripeObject {
    const intent = this.findIntent(id);
    if (intent.status !== 'requires_capture') {
      throw invalid(
        `This PaymentIntent could not be captured because it has a status of ${String(intent.status)}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        undefined,
        'payment_intent_unexpected_state',
      );
    }
    const capturable = intent.amount_capturable as number;
    const amount = (p.amount_to_capture as number | undefined) ?? capturable;
    if (amount > capturable) {
      throw invalid(
        `The amount_to_capture (${amount}) is greater than the amount capturable (${capturable}).`,
        'amount_to_capture',
        'amount_too_large',
      );
    }
    checkAmount(amount, intent.currency as string, 'amount_to_capture');
    intent.status = 'succeeded';
    intent.amount_received = amount;
    intent.amount_capturable = 0;
    const charge = this.charges.get(intent.latest_charge as string)!;
    charge.captured = true;
    charge.amount_captured = amount;
    this.emit('charge.captured', charge);
    this.emit('payment_intent.succeeded', intent);
    return clone(intent);
  }

  /** https://docs.stripe.com/api/payment_intents/cancel */
  private cancel(id: string, p: Json): StripeObject {
    const intent = this.findIntent(id);
    const cancellable = [
      'requires_payment_method',
      'requires_capture',
      'requires_confirmation',
      'requires_action',
      'processing',
    ];
    if (!cancellable.includes(intent.status as string)) {
      throw invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${String(intent.status)}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancellable.join(', ')}.`,
        undefined,
        'payment_intent_unexpected_state',
      );
    }
    intent.status = 'canceled';
    intent.canceled_at = now();
    intent.cancellation_reason = p.cancellation_reason ?? null;
    intent.amount_capturable = 0;
    intent.next_action = null;
    this.awaitingAuthentication.delete(intent.id);
    this.emit('payment_intent.canceled', intent);
    return clone(intent);
  }

  /**
   * https://docs.stripe.com/api/payment_intents/search with the clauses the driver uses:
   * `metadata['key']:'value'` and `status:'value'`, joined by AND; with {@link searchLagMs}, over
   * the PaymentIntents as they were that long ago (https://docs.stripe.com/search#data-freshness).
   */
  private search(p: Json): Json {
    const clauses = String(p.query).split(/\s+AND\s+/);
    const filters = clauses.map((clause) => {
      const match = /^(metadata\[(['"])((?:\\.|(?!\2).)*)\2\]|status):(['"])((?:\\.|(?!\4).)*)\4$/.exec(
        clause.trim(),
      );
      if (!match) throw invalid(`Invalid query: ${clause}`, 'query');
      const unescape = (text: string) => text.replace(/\\(.)/g, '$1');
      const value = unescape(match[5]);
      return match[3] !== undefined
        ? (intent: StripeObject) => (intent.metadata as Json)[unescape(match[3])] === value
        : (intent: StripeObject) => intent.status === value;
    });
    const data = this.searchable()
      .filter((intent) => filters.every((f) => f(intent)))
      .sort((a, b) => (b.created as number) - (a.created as number))
      .slice(0, (p.limit as number | undefined) ?? 10)
      .map((intent) => clone(intent));
    return {
      object: 'search_result',
      data,
      has_more: false,
      next_page: null,
      url: '/v1/payment_intents/search',
    };
  }

  /** What the search index holds now: every PaymentIntent as it was {@link searchLagMs} ago. */
  private searchable(): StripeObject[] {
    if (this.searchLagMs <= 0) return [...this.intents.values()];
    const until = Date.now() - this.searchLagMs;
    return [...this.searchIndex.values()].flatMap((versions) => {
      const seen = versions.filter((v) => v.at <= until).at(-1);
      return seen ? [seen.snapshot] : [];
    });
  }

  private indexForSearch(intent: StripeObject): void {
    const versions = this.searchIndex.get(intent.id) ?? [];
    versions.push({ at: Date.now(), snapshot: clone(intent) });
    this.searchIndex.set(intent.id, versions);
  }

  // ─── Refunds (https://docs.stripe.com/api/refunds) ────────────────────────────────────────────

  private createRefund(p: Json): StripeObject {
    if (!p.payment_intent)
      throw invalid('Missing required param: payment_intent.', 'payment_intent', 'parameter_missing');
    const intent = this.findIntent(p.payment_intent as string);
    const charge = intent.latest_charge ? this.charges.get(intent.latest_charge as string) : undefined;
    if (intent.status !== 'succeeded' || !charge) {
      throw invalid(
        `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
        'payment_intent',
      );
    }
    const remaining = (charge.amount_captured as number) - (charge.amount_refunded as number);
    if (remaining <= 0) {
      throw invalid(`Charge ${charge.id} has already been refunded.`, undefined, 'charge_already_refunded');
    }
    const amount = (p.amount as number | undefined) ?? remaining;
    if (amount > remaining) {
      throw invalid(
        `Refund amount (${formatAmount(amount, charge.currency as string)}) is greater than unrefunded amount on charge (${formatAmount(remaining, charge.currency as string)})`,
        'amount',
        'amount_too_large',
      );
    }
    checkAmount(amount, charge.currency as string, 'amount');
    const refund: StripeObject = {
      id: newId('re_3'),
      object: 'refund',
      amount,
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      metadata: p.metadata ?? {},
      payment_intent: intent.id,
      reason: p.reason ?? null,
      // https://docs.stripe.com/api/refunds/object#refund_object-status (refundsPending: `pending`)
      status: this.refundsPending ? 'pending' : 'succeeded',
    };
    this.refunds.set(refund.id, refund);
    // A pending refund already counts: the amount is on its way back (https://docs.stripe.com/refunds).
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    this.emit('refund.created', refund);
    this.emit('charge.refunded', charge);
    return clone(refund);
  }

  /**
   * https://docs.stripe.com/api/refunds/list: newest first, filtered by `payment_intent` or
   * `charge`, `limit` (default 10) and `starting_after`, with `has_more`. A list reads Stripe's
   * records (no search index): a refund shows here as soon as it is created.
   */
  private listRefunds(p: Json): Json {
    let all = [...this.refunds.values()]
      .filter((r) => !p.payment_intent || r.payment_intent === p.payment_intent)
      .filter((r) => !p.charge || r.charge === p.charge)
      .reverse();
    if (p.starting_after) {
      const index = all.findIndex((r) => r.id === p.starting_after);
      all = index < 0 ? [] : all.slice(index + 1);
    }
    const limit = (p.limit as number | undefined) ?? 10;
    return {
      object: 'list',
      data: all.slice(0, limit).map((r) => clone(r)),
      has_more: all.length > limit,
      url: '/v1/refunds',
    };
  }

  // ─── Customers and payment methods ──────────────────────────────────────────────────────────

  /** https://docs.stripe.com/api/customers/create */
  private createCustomer(p: Json): StripeObject {
    const customer: StripeObject = {
      id: newId('cus_', 14),
      object: 'customer',
      created: now(),
      email: p.email ?? null,
      livemode: false,
      metadata: p.metadata ?? {},
      name: p.name ?? null,
    };
    this.customers.set(customer.id, customer);
    return clone(customer);
  }

  /**
   * A card PaymentMethod (https://docs.stripe.com/api/payment_methods/object): `card.fingerprint` is
   * the same for the same number on this account ("Uniquely identifies this particular card
   * number"), a different one on another account (secret key).
   */
  private newPaymentMethod(
    card: TestCard,
    customer: string | null,
    details: PageCardDetails = {},
  ): SimulatedPaymentMethod {
    const pm: SimulatedPaymentMethod = {
      id: newId('pm_1'),
      object: 'payment_method',
      billing_details: { address: null, email: null, name: details.name ?? null, phone: null },
      card: {
        brand: card.brand,
        country: 'US',
        exp_month: details.expMonth ?? 12,
        exp_year: details.expYear ?? new Date().getFullYear() + 3,
        fingerprint: createHmac('sha256', this.secretKey)
          .update(card.number)
          .digest('base64')
          .replace(/[^A-Za-z0-9]/g, '')
          .slice(0, 16),
        funding: card.funding,
        last4: card.number.slice(-4),
      },
      created: now(),
      customer,
      livemode: false,
      type: 'card',
      card_number: card.number,
      setup_for_off_session: false,
    };
    this.paymentMethods.set(pm.id, pm);
    return pm;
  }

  private publicPaymentMethod(id: string): StripeObject | undefined {
    const pm = this.paymentMethods.get(id);
    if (!pm) return undefined;
    const { card_number: _number, setup_for_off_session: _setUp, issuer_answer: _answer, ...rest } = pm;
    return clone(rest);
  }

  // ─── Webhooks (https://docs.stripe.com/webhooks) ─────────────────────────────────────────────

  private makeEvent(type: string, object: Json | null): StripeObject {
    return {
      id: newId('evt_3'),
      object: 'event',
      api_version: this.validator.document.info.version,
      created: now(),
      data: { object: clone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  private emit(type: string, object: Json): void {
    if (object.object === 'payment_intent') this.indexForSearch(object as StripeObject);
    const event = this.makeEvent(type, object);
    this.events.push(event);
    if (!this.webhookUrl) return;
    if (this.holding) {
      this.held.push(event);
      return;
    }
    const sending = new Promise((resolve) => setTimeout(resolve, this.webhookDelayMs)).then(() =>
      this.deliver(event),
    );
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  /**
   * Posts `event` to the endpoint with `Stripe-Signature: t=…,v1=…`, the HMAC-SHA256 of
   * "{t}.{payload}" under the endpoint's secret (https://docs.stripe.com/webhooks#verify-manually).
   */
  private async deliver(
    event: StripeObject,
    options: { secret?: string; timestamp?: number; signature?: string; url?: string } = {},
  ): Promise<Delivery> {
    const body = JSON.stringify(event, null, 2);
    const signature =
      options.signature ??
      this.signature(body, options.timestamp ?? now(), options.secret ?? this.webhookSecret);
    const delivery: Delivery = {
      eventId: event.id,
      type: event.type as string,
      body,
      signature,
      status: 0,
      at: Date.now(),
    };
    this.deliveries.push(delivery);
    const target = options.url ?? this.webhookUrl;
    if (!target) return delivery;
    try {
      const response = await fetch(target, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'Stripe-Signature': signature,
          'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      delivery.status = response.status;
      await response.arrayBuffer();
    } catch {
      delivery.status = 0;
    }
    return delivery;
  }

  // ─── The hosted payment page ────────────────────────────────────────────────────────────────

  /**
   * `GET /c/pay/{session}`: the page (amount, card number, expiry, CVC, Pay, and a link back to
   * cancel_url); `POST` pays and answers 303 to success_url, or shows the decline.
   * `…/authenticate` is the 3D Secure challenge of the cards that ask for it.
   */
  private hostedPage(record: RecordedRequest, res: ServerResponse): void {
    const match = /^\/c\/pay\/([^/]+)(\/authenticate)?$/.exec(record.path);
    const session = match ? this.sessions.get(match[1]) : undefined;
    const send = (status: number, html: string, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        ...headers,
      });
      res.end(html);
    };
    if (!session)
      return send(404, page('Not found', '<p>Something went wrong. This page could not be found.</p>'));
    this.findSession(session.id); // expires it when its time is up
    const form = parseQuery(record.body) as Record<string, string>;
    if (match![2]) {
      const card = findTestCard(new URLSearchParams(record.query).get('card') ?? form.card ?? '');
      if (record.method === 'GET') {
        return send(
          200,
          page(
            '3D Secure authentication',
            `<p>This is a test 3D Secure page.</p>
<form method="post"><input type="hidden" name="card" value="${escapeHtml(card.number)}">
<button id="complete" name="outcome" value="complete" type="submit">Complete authentication</button>
<button id="fail" name="outcome" value="fail" type="submit">Fail authentication</button></form>`,
          ),
        );
      }
      if (form.outcome === 'complete') {
        const result = this.payOnPage(session, card, true);
        if (result.redirect) return send(303, '', { Location: result.redirect });
        return send(402, this.paymentPage(session, result.error));
      }
      const intent = this.intents.get(session.payment_intent as string)!;
      intent.last_payment_error = {
        type: 'invalid_request_error',
        code: 'payment_intent_authentication_failure',
        message:
          'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      };
      this.emit('payment_intent.payment_failed', intent);
      return send(402, this.paymentPage(session, (intent.last_payment_error as Json).message as string));
    }
    if (record.method === 'POST') {
      const result =
        form.method === 'us_bank_account'
          ? this.payWithBankAccount(session.id)
          : this.payOnPage(session, findTestCard(form.cardNumber ?? ''), false, pageDetails(form));
      if (result.redirect) return send(303, '', { Location: result.redirect });
      return send(402, this.paymentPage(session, result.error));
    }
    return send(200, this.paymentPage(session));
  }

  /**
   * `GET /3ds/{payment intent}`: the bank's 3D Secure page of a customer-present PaymentIntent
   * (`next_action.redirect_to_url.url`); `POST` with `outcome` complete or fail answers 303 to the
   * PaymentIntent's `return_url` (https://docs.stripe.com/payments/3d-secure/authentication-flow#manual-redirect).
   */
  private authenticationPage(record: RecordedRequest, res: ServerResponse): void {
    const id = /^\/3ds\/([^/]+)$/.exec(record.path)?.[1] ?? '';
    const intent = this.intents.get(id);
    const send = (status: number, html: string, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        ...headers,
      });
      res.end(html);
    };
    if (!intent || intent.status !== 'requires_action' || !this.awaitingAuthentication.has(id))
      return send(404, page('3D Secure', '<p id="closed">This authentication is no longer available.</p>'));
    if (record.method === 'POST') {
      const outcome =
        (parseQuery(record.body) as Record<string, string>).outcome === 'complete' ? 'complete' : 'fail';
      return send(303, '', { Location: this.finishAuthentication(intent, outcome) });
    }
    return send(
      200,
      page(
        '3D Secure authentication',
        `<p>This is a test 3D Secure page for ${escapeHtml(formatAmount(intent.amount as number, intent.currency as string))}.</p>
<form method="post"><button id="complete" name="outcome" value="complete" type="submit">Complete authentication</button>
<button id="fail" name="outcome" value="fail" type="submit">Fail authentication</button></form>`,
      ),
    );
  }

  private paymentPage(session: StripeObject, error?: string): string {
    if (session.status !== 'open') {
      return page(
        'Checkout',
        `<p id="closed">This Checkout Session is no longer available (${escapeHtml(String(session.status))}).</p>`,
      );
    }
    const item = ((session._line_items as Json[])[0]?.price_data as Json | undefined)?.product_data as
      Json | undefined;
    return page(
      'Checkout',
      `<h1 id="product">${escapeHtml((item?.name as string | undefined) ?? 'Payment')}</h1>
<p id="amount">${escapeHtml(formatAmount(session.amount_total as number, session.currency as string))}</p>
${error ? `<p id="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/c/pay/${escapeHtml(session.id)}">
<label>Email <input id="email" name="email" type="email" value="${escapeHtml((session.customer_email as string | null) ?? '')}"></label>
<label>Card number <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required></label>
<label>Expiry <input id="cardExpiry" name="cardExpiry" placeholder="MM / YY" value="12 / 34"></label>
<label>CVC <input id="cardCvc" name="cardCvc" value="123"></label>
<label>Name on card <input id="billingName" name="billingName" value="Test Customer"></label>
<button id="submit" class="SubmitButton" type="submit">Pay</button>
</form>
${
  (session.payment_method_types as string[]).includes('us_bank_account')
    ? `<form method="post" action="/c/pay/${escapeHtml(session.id)}"><button id="bank" name="method" value="us_bank_account" type="submit">Pay with US bank account</button></form>`
    : ''
}
${session.cancel_url ? `<a id="cancel" href="${escapeHtml(session.cancel_url as string)}">Cancel and return</a>` : ''}`,
    );
  }
}

/**
 * The payment methods a session offers when it does not name them: Stripe's dynamic payment
 * methods, those turned on in the Dashboard that fit the currency
 * (https://docs.stripe.com/payments/payment-methods/dynamic-payment-methods). Here: cards, and for
 * USD also ACH Direct Debit (`us_bank_account`, a delayed notification method,
 * https://docs.stripe.com/payments/ach-direct-debit).
 */
function dynamicMethods(currency: string): string[] {
  return currency === 'usd' ? ['card', 'us_bank_account'] : ['card'];
}

/** The expiry ("MM / YY") and name the hosted page's form carries. */
function pageDetails(form: Record<string, string>): PageCardDetails {
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.cardExpiry ?? '');
  const year = expiry ? Number(expiry[2]) : undefined;
  return {
    expMonth: expiry ? Number(expiry[1]) : undefined,
    expYear: year === undefined ? undefined : year < 100 ? 2000 + year : year,
    name: form.billingName || undefined,
  };
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
}
