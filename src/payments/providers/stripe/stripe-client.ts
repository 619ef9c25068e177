import { Logger } from '@nestjs/common';
import Stripe from 'stripe';
import { ProviderCallFailed } from '../../adapters/gateway-adapter';
import { fromStripeAmount, toStripeAmount } from './stripe-amounts';
import { connectLimitedAgent } from '../connect-limited-agent';
import {
  CONNECT_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  STRIPE_API_BASE_URL,
  type StripeSettings,
  WEBHOOK_TOLERANCE_SECONDS,
} from './stripe-settings';

/** Per-call limits; the defaults come from the gateway's settings. */
export interface CallOptions {
  /** How long this call may take to answer, in ms (default: the gateway's `timeout_ms`). */
  timeoutMs?: number;
  /**
   * Network retries for this call. Only calls Stripe documents as idempotent are ever retried: GETs,
   * and POSTs that carry an Idempotency-Key (https://docs.stripe.com/api/idempotent_requests).
   * Each try may take `timeoutMs`, so a call someone waits on should keep this at 0.
   */
  retries?: number;
}

/** What a Checkout Session for one payment attempt needs. */
export interface CheckoutSessionInput {
  /** The attempt's reference: sent as `client_reference_id` and `metadata[reference_number]`. */
  referenceNumber: string;
  /** Decimal string in major units, e.g. "12.500". */
  amount: string;
  /** ISO 4217 code, any case. */
  currency: string;
  /** The line item's name shown on Stripe's page. */
  productName: string;
  /** Must contain `{CHECKOUT_SESSION_ID}`, which Stripe replaces with the session's id. */
  successUrl: string;
  cancelUrl: string;
  /** Authorize only (`payment_intent_data[capture_method]=manual`), to be captured later. */
  manualCapture: boolean;
  /** Save the card for off-session charges (`payment_intent_data[setup_future_usage]=off_session`). */
  saveCard?: boolean;
  /** A Stripe Customer (`cus_…`) the payment and a saved card belong to. */
  customer?: string;
  customerEmail?: string;
  /** Extra metadata on both the session and its PaymentIntent (strings only, Stripe's limit). */
  metadata?: Record<string, string>;
  /** When the session stops accepting payment (30 minutes to 24 hours from now). */
  expiresAt?: Date;
}

/** An off-session charge of a saved card (a merchant-initiated charge, contract §15). */
export interface OffSessionChargeInput {
  referenceNumber: string;
  amount: string;
  currency: string;
  customer: string;
  /** The saved PaymentMethod (`pm_…`). */
  paymentMethod: string;
  manualCapture: boolean;
  metadata?: Record<string, string>;
}

/**
 * A charge of a saved card: off-session (merchant-initiated, contract §15), or with the customer
 * present (they picked the card on our page, contract §20.1): then `off_session=false`, and a card
 * whose issuer asks for 3-D Secure makes the PaymentIntent `requires_action`, sending the customer to
 * `next_action.redirect_to_url.url` and back to `returnUrl`.
 */
export interface SavedCardChargeInput extends OffSessionChargeInput {
  customerPresent: boolean;
  /** Where the customer comes back after 3-D Secure (customer-present charges only). */
  returnUrl?: string;
}

export interface RefundInput {
  paymentIntent: string;
  /** Decimal string in major units; the whole captured amount when left out. */
  amount?: string;
  /** The PaymentIntent's currency; needed when `amount` is given. */
  currency?: string;
  metadata?: Record<string, string>;
}

/** The gateway has no `webhook_secret`: notifications cannot be verified, so they are refused. */
export class WebhookSecretMissing extends Error {
  constructor() {
    super('This Stripe gateway has no webhook_secret; its notifications cannot be verified.');
    this.name = 'WebhookSecretMissing';
  }
}

/**
 * A thin client over Stripe's official Node SDK for what the `stripe` driver needs (contract §20):
 * Checkout Sessions in mode `payment`, PaymentIntents (manual capture, off-session charges, capture,
 * cancel, search), refunds, customers, and webhook verification.
 *
 * - Amounts go in as decimal strings in major units and are converted to Stripe's minor units by
 *   stripe-amounts.ts (https://docs.stripe.com/currencies).
 * - Every POST carries an Idempotency-Key given by the caller; only GETs and those POSTs may be
 *   retried, and only as many times as CallOptions.retries says (default 0).
 * - Errors are the SDK's (`Stripe.errors.*`); see describeStripeError.
 * - Each call is logged as method, path, status, Stripe's request id and duration: ids only, never
 *   the key, a body or card data.
 */
export class StripeClient {
  private readonly stripe: Stripe;
  private readonly timeoutMs: number;
  private readonly webhookSecret: string | null;
  private readonly logger = new Logger('Stripe');

  constructor(settings: StripeSettings, options: { connectTimeoutMs?: number } = {}) {
    if (!settings.secret_key) throw new Error('Stripe settings need a secret_key.');
    this.timeoutMs = Math.min(settings.timeout_ms ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
    this.webhookSecret = settings.webhook_secret || null;
    const base = new URL(settings.api_base_url || STRIPE_API_BASE_URL);
    if (base.pathname !== '/' || base.search || base.hash) {
      throw new Error('api_base_url must be an origin such as https://api.stripe.com (no path).');
    }
    const protocol = base.protocol === 'http:' ? 'http' : 'https';
    this.stripe = new Stripe(settings.secret_key, {
      host: base.hostname,
      port: base.port || (protocol === 'http' ? 80 : 443),
      protocol,
      timeout: this.timeoutMs,
      // The SDK's timeout covers the whole call; the connection has its own, shorter limit
      // (contract §20 "Provider calls"), as the MPGS and KNET clients have.
      httpAgent: connectLimitedAgent(protocol, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS),
      maxNetworkRetries: 0,
      telemetry: false,
      appInfo: { name: 'Checkout' },
    });
    // The SDK types `on` as any; it is the documented event emitter (https://github.com/stripe/stripe-node#request-and-response-events).
    const on = this.stripe.on as (name: 'response', listener: (event: Stripe.ResponseEvent) => void) => void;
    on.call(this.stripe, 'response', (event: Stripe.ResponseEvent) =>
      this.logger.log(
        `${event.method} ${event.path} → ${event.status} (${event.request_id}, ${event.elapsed} ms)`,
      ),
    );
  }

  /**
   * Creates a Checkout Session in mode `payment` with one line item priced inline.
   * https://docs.stripe.com/api/checkout/sessions/create,
   * https://docs.stripe.com/payments/accept-a-payment?platform=web&ui=stripe-hosted,
   * https://docs.stripe.com/payments/place-a-hold-on-a-payment-method (manual capture),
   * https://docs.stripe.com/payments/checkout/save-during-payment (setup_future_usage).
   */
  async createCheckoutSession(
    input: CheckoutSessionInput,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.Checkout.Session> {
    const metadata = { ...input.metadata, reference_number: input.referenceNumber };
    const currency = input.currency.toLowerCase();
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: 'payment',
      client_reference_id: input.referenceNumber,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      // Cards only: Stripe's dynamic payment methods would otherwise offer what the Dashboard has on,
      // including delayed ones (bank debits: `processing` for days) that hold the transaction that
      // long (https://docs.stripe.com/payments/payment-methods/dynamic-payment-methods). In the API
      // version the SDK pins, `allowed_payment_method_types` filters that dynamic set; it replaced
      // `payment_method_types` (stripe-node's CHANGELOG; https://docs.stripe.com/api/checkout/sessions/create).
      allowed_payment_method_types: ['card'],
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency,
            unit_amount: toStripeAmount(input.amount, currency),
            product_data: { name: input.productName },
          },
        },
      ],
      payment_intent_data: {
        capture_method: input.manualCapture ? 'manual' : 'automatic',
        ...(input.saveCard ? { setup_future_usage: 'off_session' as const } : {}),
        metadata,
      },
      metadata,
      ...(input.customer ? { customer: input.customer } : {}),
      ...(input.customerEmail && !input.customer ? { customer_email: input.customerEmail } : {}),
      ...(input.expiresAt ? { expires_at: Math.floor(input.expiresAt.getTime() / 1000) } : {}),
    };
    return this.stripe.checkout.sessions.create(params, this.post(idempotencyKey, options));
  }

  /**
   * The session with its PaymentIntent expanded, and that PaymentIntent's PaymentMethod: the
   * PaymentIntent's status decides the outcome (contract §20), not the session's `payment_status`;
   * the PaymentMethod describes the card to save (brand, last4, expiry, fingerprint; contract §15).
   * https://docs.stripe.com/api/checkout/sessions/retrieve, https://docs.stripe.com/api/expanding_objects
   */
  async retrieveCheckoutSession(id: string, options: CallOptions = {}): Promise<Stripe.Checkout.Session> {
    return this.stripe.checkout.sessions.retrieve(
      id,
      { expand: ['payment_intent', 'payment_intent.payment_method'] },
      this.get(options),
    );
  }

  /**
   * Expires an open session so that it can no longer be paid.
   * https://docs.stripe.com/api/checkout/sessions/expire
   */
  async expireCheckoutSession(
    id: string,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.Checkout.Session> {
    return this.stripe.checkout.sessions.expire(id, {}, this.post(idempotencyKey, options));
  }

  /**
   * https://docs.stripe.com/api/payment_intents/retrieve; with `withPaymentMethod`, its PaymentMethod
   * expanded (the card a saving payment saved).
   */
  async retrievePaymentIntent(
    id: string,
    options: CallOptions & { withPaymentMethod?: boolean } = {},
  ): Promise<Stripe.PaymentIntent> {
    const params = options.withPaymentMethod ? { expand: ['payment_method'] } : {};
    return this.stripe.paymentIntents.retrieve(id, params, this.get(options));
  }

  /**
   * Charges a saved card with no customer present: a PaymentIntent created and confirmed at once
   * with `off_session=true`. A card that needs authentication fails with a card_error whose code is
   * `authentication_required`.
   * https://docs.stripe.com/api/payment_intents/create,
   * https://docs.stripe.com/payments/save-and-reuse?platform=web&ui=stripe-hosted#charge-saved-payment-method
   */
  async chargeOffSession(
    input: OffSessionChargeInput,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.PaymentIntent> {
    return this.chargeSavedCard({ ...input, customerPresent: false }, idempotencyKey, options);
  }

  /**
   * Charges a saved card: a PaymentIntent created and confirmed at once, off-session
   * ({@link chargeOffSession}) or with the customer present (`off_session=false`, `return_url`: a card
   * that needs 3-D Secure answers `requires_action` with `next_action.redirect_to_url`,
   * https://docs.stripe.com/payments/3d-secure/authentication-flow#manual-redirect). The same input
   * gives the same parameters, so a charge re-sent under its Idempotency-Key to learn a lost answer
   * gets Stripe's stored answer, never a second charge (https://docs.stripe.com/api/idempotent_requests).
   */
  async chargeSavedCard(
    input: SavedCardChargeInput,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.PaymentIntent> {
    const currency = input.currency.toLowerCase();
    return this.stripe.paymentIntents.create(
      {
        amount: toStripeAmount(input.amount, currency),
        currency,
        customer: input.customer,
        payment_method: input.paymentMethod,
        confirm: true,
        off_session: !input.customerPresent,
        capture_method: input.manualCapture ? 'manual' : 'automatic',
        metadata: { ...input.metadata, reference_number: input.referenceNumber },
        ...(input.customerPresent && input.returnUrl ? { return_url: input.returnUrl } : {}),
      },
      this.post(idempotencyKey, options),
    );
  }

  /**
   * Captures an authorized PaymentIntent (status `requires_capture`), all of it or `amount` of it;
   * Stripe releases the rest. https://docs.stripe.com/api/payment_intents/capture
   */
  async capturePaymentIntent(
    id: string,
    amount: { amount: string; currency: string } | null,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.PaymentIntent> {
    const params: Stripe.PaymentIntentCaptureParams = amount
      ? { amount_to_capture: toStripeAmount(amount.amount, amount.currency) }
      : {};
    return this.stripe.paymentIntents.capture(id, params, this.post(idempotencyKey, options));
  }

  /**
   * Cancels (voids) a PaymentIntent that is not yet captured.
   * https://docs.stripe.com/api/payment_intents/cancel
   */
  async cancelPaymentIntent(
    id: string,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.PaymentIntent> {
    return this.stripe.paymentIntents.cancel(id, {}, this.post(idempotencyKey, options));
  }

  /**
   * PaymentIntents whose metadata[`key`] is `value`, newest first. Stripe's search index lags
   * ("under normal operating conditions, data is searchable in less than a minute"), so a miss is
   * not proof that none exists. https://docs.stripe.com/api/payment_intents/search,
   * https://docs.stripe.com/search#search-query-language
   */
  async searchPaymentIntentsByMetadata(
    key: string,
    value: string,
    options: CallOptions = {},
  ): Promise<Stripe.PaymentIntent[]> {
    const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    const result = await this.stripe.paymentIntents.search(
      { query: `metadata[${quote(key)}]:${quote(value)}`, limit: 10 },
      this.get(options),
    );
    return result.data;
  }

  /**
   * Refunds a PaymentIntent's charge, all of it or `amount` of it.
   * https://docs.stripe.com/api/refunds/create
   */
  async createRefund(
    input: RefundInput,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.Refund> {
    if (input.amount !== undefined && !input.currency)
      throw new Error('A partial refund needs its currency.');
    return this.stripe.refunds.create(
      {
        payment_intent: input.paymentIntent,
        ...(input.amount !== undefined ? { amount: toStripeAmount(input.amount, input.currency!) } : {}),
        ...(input.metadata ? { metadata: input.metadata } : {}),
      },
      this.post(idempotencyKey, options),
    );
  }

  /** https://docs.stripe.com/api/refunds/retrieve */
  async retrieveRefund(id: string, options: CallOptions = {}): Promise<Stripe.Refund> {
    return this.stripe.refunds.retrieve(id, {}, this.get(options));
  }

  /**
   * The refunds of a PaymentIntent, newest first, all pages (https://docs.stripe.com/api/refunds/list).
   * A list reads Stripe's records, not the search index: a refund is listed as soon as it exists,
   * so a refund whose answer was lost is found here by the metadata it was created with.
   */
  async listRefunds(paymentIntent: string, options: CallOptions = {}): Promise<Stripe.Refund[]> {
    const refunds: Stripe.Refund[] = [];
    let startingAfter: string | undefined;
    for (let page = 0; page < MAX_REFUND_PAGES; page++) {
      const list = await this.stripe.refunds.list(
        {
          payment_intent: paymentIntent,
          limit: 100,
          ...(startingAfter ? { starting_after: startingAfter } : {}),
        },
        this.get(options),
      );
      refunds.push(...list.data);
      if (!list.has_more || list.data.length === 0) return refunds;
      startingAfter = list.data.at(-1)!.id;
    }
    throw new Error(`More than ${MAX_REFUND_PAGES * 100} refunds on one PaymentIntent`);
  }

  /**
   * A Customer to attach saved cards to: a PaymentMethod saved for off-session use belongs to one
   * (https://docs.stripe.com/payments/checkout/save-during-payment). https://docs.stripe.com/api/customers/create
   */
  async createCustomer(
    input: { email?: string; name?: string; metadata?: Record<string, string> },
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Stripe.Customer> {
    return this.stripe.customers.create(input, this.post(idempotencyKey, options));
  }

  /**
   * The event in a webhook request, once its `Stripe-Signature` is verified over the raw body with
   * a tolerance of 300 s. Throws Stripe.errors.StripeSignatureVerificationError for a forged, stale
   * or malformed notification, and WebhookSecretMissing when the gateway has no webhook_secret.
   * https://docs.stripe.com/webhooks#verify-events
   */
  verifyWebhook(rawBody: string | Buffer, signatureHeader: string | undefined): Stripe.Event {
    if (!this.webhookSecret) throw new WebhookSecretMissing();
    return this.stripe.webhooks.constructEvent(
      rawBody,
      signatureHeader ?? '',
      this.webhookSecret,
      WEBHOOK_TOLERANCE_SECONDS,
    );
  }

  private get(options: CallOptions): Stripe.RequestOptions {
    return { timeout: options.timeoutMs ?? this.timeoutMs, maxNetworkRetries: options.retries ?? 0 };
  }

  private post(idempotencyKey: string, options: CallOptions): Stripe.RequestOptions {
    if (!idempotencyKey) throw new Error('Every Stripe POST carries an Idempotency-Key.');
    return { ...this.get(options), idempotencyKey };
  }
}

/** Pages of 100 refunds read at most for one PaymentIntent (a charge is refunded a few times at most). */
const MAX_REFUND_PAGES = 10;

/** A Stripe amount (minor units) of an object as our decimal string: e.g. a PaymentIntent's `amount`. */
export function amountOf(object: { amount: number; currency: string }): string {
  return fromStripeAmount(object.amount, object.currency);
}

/** How a failed Stripe call ended, for the driver's decision and for logs (no secrets, no card data). */
export interface StripeFailure {
  /**
   * - `declined`: the card was declined (card_error, 402): a definite failure;
   * - `refused`: Stripe refused the request (invalid_request_error, idempotency_error,
   *   authentication or permission errors): nothing happened;
   * - `unknown`: no answer, a timeout, a rate limit or a Stripe-side error: the outcome is unknown
   *   and must be learnt by inquiry (https://docs.stripe.com/error-low-level#idempotency).
   */
  kind: 'declined' | 'refused' | 'unknown';
  type: string;
  statusCode?: number;
  code?: string;
  declineCode?: string;
  message: string;
  requestId?: string;
}

/**
 * Sorts an error thrown by the client (https://docs.stripe.com/api/errors,
 * https://docs.stripe.com/error-handling).
 */
export function describeStripeError(error: unknown): StripeFailure {
  if (!(error instanceof Stripe.errors.StripeError)) {
    return {
      kind: 'unknown',
      type: 'unexpected',
      message: error instanceof Error ? error.message : String(error),
    };
  }
  const base = {
    type: error.type,
    statusCode: error.statusCode,
    code: error.code,
    declineCode: error.decline_code,
    message: error.message,
    requestId: error.requestId,
  };
  if (error instanceof Stripe.errors.StripeCardError) return { kind: 'declined', ...base };
  if (
    error instanceof Stripe.errors.StripeInvalidRequestError ||
    error instanceof Stripe.errors.StripeIdempotencyError ||
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError
  ) {
    return { kind: 'refused', ...base };
  }
  return { kind: 'unknown', ...base };
}

/**
 * A failed call as the seam's {@link ProviderCallFailed} (contract §20.1: a provider's own HTTP status
 * never becomes ours): Stripe's status, code and message (never the request, a key or card data);
 * `retryable` for no answer, a timeout, 429 and 5xx (https://docs.stripe.com/error-handling), not for
 * 400, 401, 403, 404 or 409, which asking again the same way does not change.
 */
export function stripeCallFailed(failure: StripeFailure): ProviderCallFailed {
  const status = failure.statusCode ?? null;
  const retryable = status === null || status === 429 || status >= 500;
  const message =
    failure.type === 'unexpected' || status === null
      ? `Stripe did not answer in time (${failure.type})`
      : `Stripe answered ${status}: ${failure.message}`;
  return new ProviderCallFailed('stripe', message, { status, code: failure.code ?? null, retryable });
}
