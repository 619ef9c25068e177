import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import {
  type AttemptOutcome,
  callTimeoutMs,
  type Completion,
  type CompleteInput,
  type DriverCall,
  type DriverSettingsValues,
  type FollowUpInput,
  type FollowUpOutcome,
  type InquiryAnswer,
  type InquiryInput,
  type NotificationInput,
  type PayInput,
  type PayRedirect,
  type ProviderCard,
  ProviderCallFailed,
  type ProviderData,
  type ProviderNotification,
  type ProviderOutcome,
  type RedirectDriver,
  type SaveCardRequest,
  type StartInput,
  type StartResult,
  UnverifiedNotification,
} from '../../adapters/gateway-adapter';
import { UnchargeableAmount } from '../../providers/stripe/stripe-amounts';
import {
  amountOf,
  type CallOptions,
  describeStripeError,
  type SavedCardChargeInput,
  StripeClient,
  stripeCallFailed,
  WebhookSecretMissing,
} from '../../providers/stripe/stripe-client';
import {
  brandName,
  customerIdOf,
  expandedPaymentMethod,
  readStripeCardToken,
  stripeCardToken,
} from '../../providers/stripe/stripe-cards';
import {
  BACKGROUND_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  STRIPE_API_BASE_URL,
  type StripeSettings,
} from '../../providers/stripe/stripe-settings';
import { ProviderDriver } from '../provider-driver';
import { STRIPE_CATALOGUE } from './stripe.catalogue';

export const STRIPE_PG = STRIPE_CATALOGUE.pg;
/** Where Stripe Checkout's hosted pages are. */
const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

/** Stripe keeps a Checkout Session open for 30 minutes at least and 24 hours at most. */
const MIN_SESSION_MS = 31 * 60_000;
const MAX_SESSION_MS = 23 * 3600_000;

/** The Checkout Session events whose session names one of our attempts (`client_reference_id`). */
const SESSION_EVENTS: ReadonlySet<string> = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
]);
/** The PaymentIntent events whose PaymentIntent names one of our attempts (`metadata[reference_number]`). */
const INTENT_EVENTS: ReadonlySet<string> = new Set([
  'payment_intent.succeeded',
  'payment_intent.amount_capturable_updated',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'payment_intent.requires_action',
  'payment_intent.processing',
]);

/** PaymentIntent statuses from which nothing more happens unless we confirm it again. */
const CANCELABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action']);

/**
 * The `stripe` driver (contract §20, §20.1; docs/gateways/stripe.md), on StripeClient (Stripe's
 * official SDK). What it reads is always Stripe's own record, never a search that may lag
 * (https://docs.stripe.com/search#data-freshness) and never the browser:
 *
 * - start: a Checkout Session in mode `payment`, cards only, `client_reference_id` = the attempt's
 *   reference, manual capture when the gateway authorizes; Idempotency-Key `<reference>-session`;
 *   `payable_until`/`resume_until` = the session's `expires_at`;
 * - the return, inquiry and notifications read the session with its PaymentIntent (and that one's
 *   PaymentMethod) expanded: the PaymentIntent's status decides (`succeeded` → paid,
 *   `requires_capture` → authorized), never the session's `payment_status`
 *   (https://docs.stripe.com/payments/paymentintents/lifecycle). A declined card leaves the session
 *   open (https://docs.stripe.com/payments/checkout/how-checkout-works): nothing is decided until it
 *   completes or is expired (abandon: POST …/expire, https://docs.stripe.com/api/checkout/sessions/expire);
 * - notifications are verified by `Stripe-Signature` and are no proof by themselves: they name the
 *   attempt and the pay path asks {@link inquire} (`ask`);
 * - saved cards (contract §15): charged with a PaymentIntent under the Idempotency-Key
 *   `<reference>-charge`, off-session for auto-debit, with the customer present (3-D Secure by
 *   redirect) for a card picked on our page; a lost answer is learnt by sending the same charge
 *   again under the same key (https://docs.stripe.com/api/idempotent_requests);
 * - capture, void and refund with the operation's key; refunds are read back (a refund may stay
 *   `pending`, then fail: https://docs.stripe.com/api/refunds/object#refund_object-status).
 */
@Injectable()
export class StripeDriver extends ProviderDriver implements RedirectDriver {
  static readonly catalogue = STRIPE_CATALOGUE;

  constructor() {
    super(STRIPE_PG, 'StripeDriver');
  }

  async start(input: StartInput): Promise<StartResult> {
    const client = clientFor(input.settings);
    try {
      const customer = input.saveCard
        ? await this.customerFor(client, input.saveCard, input.referenceNumber, callOptions(input))
        : undefined;
      const session = await client.createCheckoutSession(
        {
          referenceNumber: input.referenceNumber,
          amount: input.amount,
          currency: input.currencyCode,
          productName: input.description,
          successUrl: `${input.returnUrl}${input.returnUrl.includes('?') ? '&' : '?'}session_id={CHECKOUT_SESSION_ID}`,
          cancelUrl: input.cancelUrl,
          manualCapture: input.operation === 'authorize',
          expiresAt: sessionExpiry(input.expiresAt),
          ...(customer ? { customer, saveCard: true } : {}),
        },
        `${input.referenceNumber}-session`,
        callOptions(input),
      );
      if (!session.url) throw new Error(`Stripe session ${session.id} came back without a url`);
      // Until expires_at the session takes money and may be handed to the customer again; after it,
      // Stripe expires it (https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-expires_at).
      const until = new Date(session.expires_at * 1000).toISOString();
      return {
        provider: { session_id: session.id, url: session.url, payable_until: until, resume_until: until },
        destination: { kind: 'redirect', url: session.url },
      };
    } catch (error) {
      throw this.failed(error, 'start');
    }
  }

  /**
   * The Stripe Customer a card saved on this attempt joins: the one of the customer's most recently
   * used card on this gateway (all their cards then sit under one Customer in Stripe's Dashboard),
   * or a new one, created under the key `<reference>-customer` so a retried start makes no second.
   */
  private async customerFor(
    client: StripeClient,
    save: SaveCardRequest,
    reference: string,
    options: CallOptions,
  ): Promise<string> {
    for (const token of save.savedTokens) {
      const saved = readStripeCardToken(token);
      if (saved) return saved.customer;
    }
    const created = await client.createCustomer(
      { metadata: { customer_id: save.customerId } },
      `${reference}-customer`,
      options,
    );
    return created.id;
  }

  /**
   * Stripe's hosted page is on https://checkout.stripe.com (a session's `url`,
   * https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-url); an
   * `api_base_url` other than Stripe's (the tests' simulator) serves its page on its own origin.
   */
  pageOrigins(call: { settings: DriverSettingsValues }): string[] {
    const base = typeof call.settings.api_base_url === 'string' ? call.settings.api_base_url : '';
    const origin = base ? new URL(base).origin : STRIPE_API_BASE_URL;
    return [origin === STRIPE_API_BASE_URL ? STRIPE_CHECKOUT_ORIGIN : origin];
  }

  /**
   * The customer's return, read from Stripe's record (the browser's `session_id` and
   * `payment_intent` are never used: the ids are the ones stored with the attempt).
   * - A Checkout Session: as {@link inquire}, except that a session still open means the customer is
   *   back without paying while it can still take money (`left`).
   * - A saved card's 3-D Secure (`payment_intent` only): `requires_action` is an authentication the
   *   customer abandoned (`left`); a failed authentication leaves the PaymentIntent waiting for
   *   another card, which only our key (or its client secret, which the return URL shows) could
   *   give it: it is canceled first, then declined.
   */
  async complete(input: CompleteInput): Promise<Completion> {
    const client = clientFor(input.settings);
    const options = callOptions(input);
    try {
      const sessionId = input.provider?.session_id;
      if (sessionId) {
        const session = await client.retrieveCheckoutSession(sessionId, options);
        return session.status === 'open' ? 'left' : sessionAnswer(session);
      }
      const intentId = input.provider?.payment_intent;
      if (!intentId) return this.inquire({ ...input, background: false });
      const intent = await client.retrievePaymentIntent(intentId, { ...options, withPaymentMethod: true });
      if (intent.status === 'requires_action') return 'left';
      if (intent.status === 'requires_payment_method' && intent.last_payment_error) {
        const decline = declined(intent);
        const closed = await this.closeIntent(client, intent, input.referenceNumber, callOptions(input));
        return closed.status === 'canceled' ? decline : intentAnswer(closed);
      }
      return intentAnswer(intent);
    } catch (error) {
      throw this.failed(error, 'complete');
    }
  }

  /**
   * What Stripe's own record says of an attempt (contract §20.1: asked, never guessed):
   * - a Checkout Session: retrieved with its PaymentIntent and PaymentMethod;
   * - a PaymentIntent we know (a saved-card charge that answered, a 3-D Secure redirect, or one a
   *   verified notification named): retrieved;
   * - a saved-card charge whose answer was lost (`payment`): the same charge sent again under the
   *   same Idempotency-Key, whose answer is Stripe's stored answer to the first one — never a second
   *   charge — then the PaymentIntent it names retrieved when that answer was not final;
   * - nothing else known: a PaymentIntent carrying the reference found by search is read by its id;
   *   a search that finds nothing proves nothing (its index lags), so that is unknown (a throw).
   * Every failure to ask throws ({@link ProviderCallFailed}).
   */
  async inquire(input: InquiryInput): Promise<InquiryAnswer> {
    const client = clientFor(input.settings);
    const options = callOptions(input);
    try {
      const sessionId = input.provider?.session_id;
      if (sessionId) return sessionAnswer(await client.retrieveCheckoutSession(sessionId, options));
      const intentId = input.provider?.payment_intent;
      if (intentId)
        return intentAnswer(
          await client.retrievePaymentIntent(intentId, { ...options, withPaymentMethod: true }),
        );
      if (input.payment) return await this.replayCharge(client, input, options);
      const [found] = await client.searchPaymentIntentsByMetadata(
        'reference_number',
        input.referenceNumber,
        options,
      );
      if (found)
        return intentAnswer(
          await client.retrievePaymentIntent(found.id, { ...options, withPaymentMethod: true }),
        );
    } catch (error) {
      throw this.failed(error, 'inquiry');
    }
    throw new ProviderCallFailed(
      STRIPE_PG,
      'Stripe has no record of this attempt to read yet (its search lags); asked again later',
      { status: null, code: 'not_yet_known', retryable: true },
    );
  }

  /**
   * The charge of {@link inquire}'s `payment`, sent again exactly as first sent under its key:
   * Stripe answers what it answered the first time (a PaymentIntent, or the stored card decline or
   * refusal; https://docs.stripe.com/api/idempotent_requests: "subsequent requests with the same key
   * return the same result, including 500 errors"). A refusal stored for the key means nothing was
   * charged (null); a 5xx stored for it stays unknown.
   */
  private async replayCharge(
    client: StripeClient,
    input: InquiryInput,
    options: CallOptions,
  ): Promise<InquiryAnswer> {
    const payment = input.payment!;
    const charge = chargeOf(payment);
    if (!charge) return null; // no Stripe card behind the token: pay never sent anything
    let intent: Stripe.PaymentIntent;
    try {
      intent = await client.chargeSavedCard(charge, `${payment.referenceNumber}-charge`, options);
    } catch (error) {
      const failure = describeStripeError(error);
      if (failure.kind === 'declined') return declinedFromError(error, failure.declineCode ?? failure.code);
      if (failure.kind === 'refused' && failure.type === 'StripeInvalidRequestError') return null;
      throw error;
    }
    if (isFinal(intent)) return intentAnswer(intent);
    // The stored answer is the first one (e.g. `requires_action` of a 3-D Secure charge): now?
    return intentAnswer(
      await client.retrievePaymentIntent(intent.id, { ...options, withPaymentMethod: true }),
    );
  }

  /**
   * Makes the attempt's session unpayable, then reads it: a Checkout Session is expired; a saved
   * card's PaymentIntent still waiting for the customer (3-D Secure) is canceled. `null` once
   * nothing can be taken any more, the outcome when it was paid meanwhile.
   */
  async abandon(input: InquiryInput): Promise<InquiryAnswer> {
    const client = clientFor(input.settings);
    const options = callOptions(input);
    try {
      const sessionId = input.provider?.session_id;
      if (sessionId) {
        try {
          await client.expireCheckoutSession(sessionId, `${input.referenceNumber}-expire`, options);
        } catch (error) {
          // Refused: the session is no longer open (completed or expired already); its record decides.
          if (describeStripeError(error).kind !== 'refused') throw error;
        }
        return sessionAnswer(await client.retrieveCheckoutSession(sessionId, callOptions(input)));
      }
      const intentId = input.provider?.payment_intent;
      if (!intentId) return await this.inquire(input);
      const intent = await client.retrievePaymentIntent(intentId, { ...options, withPaymentMethod: true });
      return intentAnswer(await this.closeIntent(client, intent, input.referenceNumber, callOptions(input)));
    } catch (error) {
      throw this.failed(error, 'abandon');
    }
  }

  /**
   * Cancels a PaymentIntent that could still be confirmed (https://docs.stripe.com/api/payment_intents/cancel),
   * under the key `<reference>-cancel`; the PaymentIntent as it is then.
   */
  private async closeIntent(
    client: StripeClient,
    intent: Stripe.PaymentIntent,
    reference: string,
    options: CallOptions,
  ): Promise<Stripe.PaymentIntent> {
    if (!CANCELABLE.has(intent.status)) return intent;
    try {
      await client.cancelPaymentIntent(intent.id, `${reference}-cancel`, options);
    } catch (error) {
      if (describeStripeError(error).kind !== 'refused') throw error;
    }
    return client.retrievePaymentIntent(intent.id, { ...options, withPaymentMethod: true });
  }

  /**
   * A notification: verified over the raw body first (anything that does not verify, an empty
   * `v1=` included, is {@link UnverifiedNotification}: 400). A verified event is no proof by itself
   * (https://docs.stripe.com/webhooks#event-ordering: events come in any order, more than once):
   * one that names an attempt of ours — a Checkout Session's `client_reference_id`, a
   * PaymentIntent's `metadata[reference_number]` — is `ask`, and the pay path asks {@link inquire},
   * which reads the session (and the card it saved) from Stripe. A PaymentIntent's id is kept with
   * the attempt (a saved-card charge whose answer was lost is then read by it). Every other event,
   * and one whose object is missing or malformed, is acknowledged and ignored.
   */
  // eslint-disable-next-line @typescript-eslint/require-await -- async: a refusal is a rejection, as the seam's callers await it
  async notification(input: NotificationInput): Promise<ProviderNotification> {
    let event: unknown;
    try {
      // Settings that cannot make a client (an api_base_url with a path) verify nothing either.
      event = clientFor(input.settings).verifyWebhook(input.rawBody, input.headers['stripe-signature']);
    } catch (error) {
      if (error instanceof WebhookSecretMissing) throw new UnverifiedNotification(error.message);
      // The SDK throws StripeSignatureVerificationError, a SyntaxError for a body that is not JSON,
      // and plain errors for some malformed headers (an empty `v1=`): none of them verified.
      throw new UnverifiedNotification('Stripe-Signature does not verify');
    }
    if (!isRecord(event) || typeof event.type !== 'string')
      throw new UnverifiedNotification('The signed body is not a Stripe event');
    const object = isRecord(event.data) && isRecord(event.data.object) ? event.data.object : null;
    if (!object) return { kind: 'ignore' };
    if (SESSION_EVENTS.has(event.type)) {
      const reference = text(object.client_reference_id);
      return reference ? { kind: 'ask', referenceNumber: reference } : { kind: 'ignore' };
    }
    if (INTENT_EVENTS.has(event.type)) {
      const reference = isRecord(object.metadata) ? text(object.metadata.reference_number) : null;
      const id = text(object.id);
      if (!reference) return { kind: 'ignore' };
      return {
        kind: 'ask',
        referenceNumber: reference,
        ...(id?.startsWith('pi_') ? { provider: { payment_intent: id } } : {}),
      };
    }
    // refund.*, charge.*: operations are read back by the reconciler (followUp), not from events.
    return { kind: 'ignore' };
  }

  /**
   * Charges a card saved through Stripe (contract §15): a PaymentIntent created and confirmed at once
   * with the card's Customer and PaymentMethod, manual capture when the gateway authorizes,
   * `metadata[reference_number]` and the Idempotency-Key `<reference>-charge`
   * (https://docs.stripe.com/api/payment_intents/create).
   *
   * - Auto-debit (merchant-initiated): `off_session=true`; a card whose issuer wants 3-D Secure is
   *   declined `authentication_required` (https://docs.stripe.com/payments/save-and-reuse#charge-saved-payment-method).
   * - A card the customer picked on our page (`cardholderPresent`): customer-initiated,
   *   `off_session=false` with `return_url`; `requires_action` sends the customer to
   *   `next_action.redirect_to_url.url` (https://docs.stripe.com/payments/3d-secure/authentication-flow#manual-redirect)
   *   and their return goes through {@link complete}. Without a return URL there is no way back: the
   *   PaymentIntent is canceled and the charge declined `authentication_required`.
   *
   * A card_error is a decline; any other answer, or none, throws: the outcome is unknown (the attempt
   * stays pending) and {@link inquire} sends the same charge again to learn it.
   */
  async pay(input: PayInput): Promise<AttemptOutcome | PayRedirect> {
    if (!('gatewayToken' in input.card))
      throw new Error('The stripe driver takes new cards on Stripe’s page (start), never here');
    const charge = chargeOf(input);
    if (!charge) return { result: 'error', responseCode: 'unknown_card_token' };
    const client = clientFor(input.settings);
    let intent: Stripe.PaymentIntent;
    try {
      intent = await client.chargeSavedCard(charge, `${input.referenceNumber}-charge`, callOptions(input));
    } catch (error) {
      const failure = describeStripeError(error);
      this.logger.warn(
        { kind: failure.kind, type: failure.type, code: failure.code, requestId: failure.requestId },
        'Stripe did not charge a saved card',
      );
      if (failure.kind === 'declined') {
        const outcome = declinedFromError(error, failure.declineCode ?? failure.code);
        return { result: 'declined', responseCode: outcome.responseCode, provider: outcome.provider };
      }
      throw this.failed(error, 'charge');
    }
    if (intent.status === 'requires_action') {
      const url = intent.next_action?.redirect_to_url?.url;
      if (charge.customerPresent && charge.returnUrl && url)
        return { result: 'redirect', url, provider: { payment_intent: intent.id } };
      const closed = await this.closeIntent(client, intent, input.referenceNumber, callOptions(input)).catch(
        (error: unknown) => {
          throw this.failed(error, 'cancel');
        },
      );
      if (closed.status !== 'canceled') return this.settledCharge(closed);
      return {
        result: 'declined',
        responseCode: 'authentication_required',
        provider: { payment_intent: intent.id },
      };
    }
    return this.settledCharge(intent);
  }

  /** A charge's PaymentIntent as an outcome; one that is not final yet throws (inquiry decides). */
  private settledCharge(intent: Stripe.PaymentIntent): AttemptOutcome {
    const answer = intentAnswer(intent);
    if (answer === 'open' || answer === null)
      throw new ProviderCallFailed(STRIPE_PG, `A saved-card PaymentIntent came back ${intent.status}`, {
        status: 200,
        code: intent.status,
        retryable: true,
      });
    return { result: answer.result, responseCode: answer.responseCode, provider: answer.provider };
  }

  /**
   * Capture, void or refund, under the Idempotency-Key `<reference>-<operation>-<operationKey>`.
   * - A refund is read back, never taken from an answer alone: `succeeded` → success; `pending` (or
   *   `requires_action`) → unknown, the operation stays pending; `failed` / `canceled` → failed.
   *   Repeated (`repeat`), it is first looked for among the PaymentIntent's refunds by the key kept
   *   in its metadata (a list reads Stripe's records): found, its status decides; a replayed create
   *   would only return the first answer (`pending` forever), and after Stripe forgets a key (24
   *   hours) would refund again.
   * - A capture or void Stripe refuses on a repeat is checked against the PaymentIntent (already
   *   captured or canceled: done).
   * - An amount Stripe cannot move in the currency is failed before anything is sent.
   * No answer → unknown; a Stripe error answer (401, 403, 409, 429, 5xx) → {@link ProviderCallFailed}.
   */
  async followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    const client = clientFor(input.settings);
    const key = `${input.referenceNumber}-${input.operation}-${input.operationKey ?? randomBytes(8).toString('hex')}`;
    try {
      const intentId = await this.intentOf(client, input.provider, callOptions(input));
      if (!intentId) return { result: 'failed', message: 'Stripe has no payment for this transaction.' };
      if (input.operation === 'refund') return await this.refund(client, input, intentId, key);
      const amount = input.partial ? { amount: input.amount, currency: input.currencyCode } : null;
      try {
        if (input.operation === 'capture')
          await client.capturePaymentIntent(intentId, amount, key, callOptions(input));
        else await client.cancelPaymentIntent(intentId, key, callOptions(input));
      } catch (error) {
        if (!input.repeat || describeStripeError(error).type !== 'StripeInvalidRequestError') throw error;
        const intent = await client.retrievePaymentIntent(intentId, callOptions(input));
        const done =
          input.operation === 'capture' ? intent.status === 'succeeded' : intent.status === 'canceled';
        if (!done) throw error;
      }
      return { result: 'success' };
    } catch (error) {
      return this.operationFailed(input, error);
    }
  }

  private async refund(
    client: StripeClient,
    input: FollowUpInput,
    intentId: string,
    key: string,
  ): Promise<FollowUpOutcome> {
    if (input.repeat) {
      const refunds = await client.listRefunds(intentId, callOptions(input));
      const ours = refunds.find((refund) => refund.metadata?.operation_key === key);
      if (ours) return refundOutcome(ours);
    }
    const refund = await client.createRefund(
      {
        paymentIntent: intentId,
        amount: input.amount,
        currency: input.currencyCode,
        metadata: { reference_number: input.referenceNumber, operation_key: key },
      },
      key,
      callOptions(input),
    );
    return refundOutcome(refund);
  }

  private operationFailed(input: FollowUpInput, error: unknown): FollowUpOutcome {
    if (error instanceof UnchargeableAmount) return { result: 'failed', message: error.message };
    const failure = describeStripeError(error);
    this.logger.warn(
      {
        operation: input.operation,
        kind: failure.kind,
        type: failure.type,
        code: failure.code,
        requestId: failure.requestId,
      },
      'Stripe did not carry out an operation',
    );
    if (failure.kind === 'declined' || failure.type === 'StripeInvalidRequestError')
      return { result: 'failed', message: `Stripe refused the ${input.operation}: ${failure.message}` };
    if (failure.statusCode === undefined) return { result: 'unknown' };
    throw stripeCallFailed(failure);
  }

  private async intentOf(
    client: StripeClient,
    provider: ProviderData | null | undefined,
    options: CallOptions,
  ): Promise<string | null> {
    if (provider?.payment_intent) return provider.payment_intent;
    if (!provider?.session_id) return null;
    const session = await client.retrieveCheckoutSession(provider.session_id, options);
    return typeof session.payment_intent === 'string'
      ? session.payment_intent
      : (session.payment_intent?.id ?? null);
  }

  /**
   * A failed call as {@link ProviderCallFailed}, logged by ids and codes only (never the SDK's error,
   * which may carry the request).
   */
  private failed(error: unknown, step: string): ProviderCallFailed {
    if (error instanceof ProviderCallFailed) return error;
    const failure = describeStripeError(error);
    if (failure.type === 'unexpected' && !(error instanceof UnchargeableAmount)) {
      this.logger.warn({ step, message: failure.message }, 'A Stripe call failed');
    } else {
      this.logger.warn(
        {
          step,
          type: failure.type,
          status: failure.statusCode,
          code: failure.code,
          requestId: failure.requestId,
        },
        'Stripe did not answer as asked',
      );
    }
    if (error instanceof UnchargeableAmount)
      return new ProviderCallFailed(STRIPE_PG, error.message, {
        status: null,
        code: 'amount',
        retryable: false,
      });
    return stripeCallFailed(failure);
  }
}

/** A StripeClient for one gateway's settings. */
function clientFor(settings: DriverSettingsValues): StripeClient {
  const text = (key: string) => (typeof settings[key] === 'string' ? settings[key] : null);
  const stripeSettings: StripeSettings = {
    secret_key: text('secret_key') ?? '',
    webhook_secret: text('webhook_secret'),
    api_base_url: text('api_base_url'),
    timeout_ms: typeof settings.timeout_ms === 'number' ? settings.timeout_ms : null,
  };
  return new StripeClient(stripeSettings);
}

/**
 * How long one call may take: someone waiting (a customer, a merchant) → the gateway's `timeout_ms`
 * cut to what is left of the request's shared deadline (contract §17's 10 s); nobody waiting (the
 * reconciler) → the background limit, with Stripe's documented-idempotent calls retried twice.
 */
function callOptions(input: DriverCall & { background?: boolean }): CallOptions {
  if (input.background && input.deadline === undefined)
    return { timeoutMs: BACKGROUND_TIMEOUT_MS, retries: 2 };
  const setting =
    typeof input.settings.timeout_ms === 'number' ? input.settings.timeout_ms : DEFAULT_TIMEOUT_MS;
  return { timeoutMs: callTimeoutMs(Math.min(setting, MAX_TIMEOUT_MS), input.deadline) };
}

/** The charge a saved-card payment sends (the same every time for one attempt); null for a token not ours. */
function chargeOf(payment: Omit<PayInput, keyof DriverCall>): SavedCardChargeInput | null {
  if (!('gatewayToken' in payment.card)) return null;
  const saved = readStripeCardToken(payment.card.gatewayToken);
  if (!saved) return null;
  const customerPresent = payment.card.cardholderPresent === true;
  return {
    referenceNumber: payment.referenceNumber,
    amount: payment.amount,
    currency: payment.currencyCode,
    customer: saved.customer,
    paymentMethod: saved.paymentMethod,
    manualCapture: payment.operation === 'authorize',
    customerPresent,
    ...(customerPresent && payment.returnUrl ? { returnUrl: payment.returnUrl } : {}),
  };
}

/** When the session stops taking payment: the transaction's deadline, within Stripe's bounds. */
function sessionExpiry(deadline: Date | undefined): Date {
  const now = Date.now();
  const at = deadline?.getTime() ?? now + MAX_SESSION_MS;
  return new Date(Math.min(Math.max(at, now + MIN_SESSION_MS), now + MAX_SESSION_MS));
}

/**
 * What a session's record says: open (nothing decided: a card declined on the page leaves it open),
 * its PaymentIntent's answer once complete, or, expired, nothing taken (declined when a card was
 * declined on it before). https://docs.stripe.com/api/checkout/sessions/object#checkout_session_object-status
 */
function sessionAnswer(session: Stripe.Checkout.Session): InquiryAnswer {
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  if (session.status === 'open') return 'open';
  if (session.status === 'complete') return intent ? intentAnswer(intent) : 'open';
  if (session.status !== 'expired') throw new Error(`A Checkout Session in status ${String(session.status)}`);
  if (intent && (intent.status === 'succeeded' || intent.status === 'requires_capture'))
    return intentAnswer(intent);
  if (intent?.last_payment_error) return declined(intent);
  return null;
}

/** A PaymentIntent in a state nothing changes without us: paid, authorized, canceled, declined. */
function isFinal(intent: Stripe.PaymentIntent): boolean {
  return (
    ['succeeded', 'requires_capture', 'canceled'].includes(intent.status) ||
    (intent.status === 'requires_payment_method' && !!intent.last_payment_error)
  );
}

/**
 * What a PaymentIntent's status means for the attempt (contract §20; https://docs.stripe.com/payments/paymentintents/lifecycle).
 * When its PaymentMethod is expanded, the outcome describes the card; when it was set up for
 * off-session use, it also carries our token of the saved card (contract §15).
 */
function intentAnswer(intent: Stripe.PaymentIntent): InquiryAnswer {
  const base = {
    amount: amountOf(intent),
    currencyCode: intent.currency.toUpperCase(),
    provider: { payment_intent: intent.id },
  };
  switch (intent.status) {
    case 'succeeded':
    case 'requires_capture':
      return { result: 'success', responseCode: intent.status, ...base, ...savedCardOf(intent) };
    case 'canceled':
      return intent.last_payment_error ? declined(intent) : null;
    case 'requires_payment_method':
      return intent.last_payment_error ? declined(intent) : 'open';
    default:
      return 'open'; // processing, requires_action, requires_confirmation: not decided yet
  }
}

/** The card a PaymentIntent charged, and our token of it when it was saved for off-session use. */
function savedCardOf(intent: Stripe.PaymentIntent): { card?: ProviderCard; gatewayToken?: string } {
  const method = expandedPaymentMethod(intent);
  if (!method?.card) return {};
  const card: ProviderCard = {
    brand: brandName(method.card.brand),
    last4: method.card.last4,
    expiryMonth: method.card.exp_month,
    expiryYear: method.card.exp_year,
    nameOnCard: (method.billing_details?.name ?? '').slice(0, 64),
    fingerprint: method.card.fingerprint ?? null,
  };
  const customer = customerIdOf(intent);
  const saved = intent.setup_future_usage === 'off_session' && customer !== null;
  return saved ? { card, gatewayToken: stripeCardToken({ customer, paymentMethod: method.id }) } : { card };
}

function declined(intent: Stripe.PaymentIntent): ProviderOutcome {
  const error = intent.last_payment_error;
  return {
    result: 'declined',
    responseCode: responseCode(error?.decline_code ?? error?.code ?? intent.status),
    amount: amountOf(intent),
    currencyCode: intent.currency.toUpperCase(),
    provider: { payment_intent: intent.id },
  };
}

/** A card_error of a charge: declined with its decline code, and its PaymentIntent when it names one. */
function declinedFromError(error: unknown, code: string | undefined): ProviderOutcome {
  const intentId = error instanceof Stripe.errors.StripeError ? error.payment_intent?.id : undefined;
  return {
    result: 'declined',
    responseCode: responseCode(code ?? 'card_declined'),
    ...(intentId ? { provider: { payment_intent: intentId } } : {}),
  };
}

/**
 * Stripe's decline or error code as the attempt's response code (32 characters at most): whole
 * when it fits, else without its `payment_intent_` prefix (`payment_intent_authentication_failure`
 * → `authentication_failure`, https://docs.stripe.com/error-codes#payment-intent-authentication-failure).
 */
function responseCode(code: string): string {
  if (code.length <= 32) return code;
  return code.replace(/^payment_intent_/, '').slice(0, 32);
}

/** https://docs.stripe.com/api/refunds/object#refund_object-status */
function refundOutcome(refund: Stripe.Refund): FollowUpOutcome {
  switch (refund.status) {
    case 'succeeded':
      return { result: 'success' };
    case 'failed':
    case 'canceled':
      return {
        result: 'failed',
        message: `Stripe's refund ${refund.status}${refund.failure_reason ? ` (${refund.failure_reason})` : ''}.`,
      };
    default:
      return { result: 'unknown' }; // pending, requires_action: Stripe has not finished it
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}
