import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import {
  type AttemptOutcome,
  type Completion,
  type CompleteInput,
  type DriverSettingsValues,
  type FollowUpInput,
  type FollowUpOutcome,
  type InquiryAnswer,
  type InquiryInput,
  type NotificationInput,
  type PayInput,
  type ProviderCard,
  type ProviderData,
  type ProviderNotification,
  type ProviderOutcome,
  type RedirectDriver,
  type SaveCardRequest,
  type StartInput,
  type StartResult,
  UnverifiedNotification,
} from '../adapters/gateway-adapter';
import {
  amountOf,
  describeStripeError,
  StripeClient,
  WebhookSecretMissing,
} from '../providers/stripe/stripe-client';
import {
  brandName,
  customerIdOf,
  expandedPaymentMethod,
  readStripeCardToken,
  stripeCardToken,
} from '../providers/stripe/stripe-cards';
import {
  BACKGROUND_TIMEOUT_MS,
  STRIPE_API_BASE_URL,
  type StripeSettings,
} from '../providers/stripe/stripe-settings';
import { ProviderDriver } from './provider-driver';

export const STRIPE_PG = 'stripe';
/** Where Stripe Checkout's hosted pages are. */
const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

/** Stripe keeps a Checkout Session open for 30 minutes at least and 24 hours at most. */
const MIN_SESSION_MS = 31 * 60_000;
const MAX_SESSION_MS = 23 * 3600_000;

/**
 * The `stripe` driver (contract §20; docs/gateways/stripe.md), on StripeClient (Stripe's official SDK):
 *
 * - start: a Checkout Session in mode `payment`, `client_reference_id` = the attempt's reference,
 *   manual capture when the gateway's operation is `authorize`; the customer is sent to its `url`;
 *   its Idempotency-Key is `<reference>-session` (https://docs.stripe.com/api/idempotent_requests);
 * - the customer's return and inquiry retrieve the session with its PaymentIntent, whose status
 *   decides (`succeeded` → paid, `requires_capture` → authorized); the session's `payment_status`
 *   never does (https://docs.stripe.com/payments/paymentintents/lifecycle);
 * - notifications are verified by `Stripe-Signature` (refused without a webhook_secret); a
 *   `checkout.session.completed` is read by retrieving its PaymentIntent
 *   (https://docs.stripe.com/checkout/fulfillment);
 * - a failed payment on Stripe's page leaves the session open (the customer may try another card),
 *   so it decides nothing until the session completes or is expired (abandon);
 * - capture (partial), void (cancel), refund (partial): https://docs.stripe.com/api/payment_intents/capture,
 *   https://docs.stripe.com/api/payment_intents/cancel, https://docs.stripe.com/api/refunds/create;
 * - saved cards (contract §15): a session that saves has a Customer and
 *   `payment_intent_data.setup_future_usage=off_session`; its PaymentMethod (brand, last4, expiry,
 *   fingerprint) is read from the expanded PaymentIntent, and our gateway token of the card is
 *   `<customer>/<payment method>` (https://docs.stripe.com/payments/checkout/save-during-payment).
 *   {@link pay} charges it off-session (https://docs.stripe.com/payments/save-during-payment#charge-saved-payment-method).
 */
@Injectable()
export class StripeDriver extends ProviderDriver implements RedirectDriver {
  constructor() {
    super(STRIPE_PG, 'StripeDriver');
  }

  async start(input: StartInput): Promise<StartResult> {
    const client = clientFor(input.settings);
    const customer = input.saveCard
      ? await this.customerFor(client, input.saveCard, input.referenceNumber)
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
    );
    if (!session.url) throw new Error(`Stripe session ${session.id} came back without a url`);
    return {
      provider: { session_id: session.id, url: session.url },
      destination: { kind: 'redirect', url: session.url },
    };
  }

  /**
   * The Stripe Customer a card saved on this attempt joins: the one of the customer's most recently
   * used card on this gateway (all their cards then sit under one Customer in Stripe's Dashboard),
   * or a new one, created under the key `<reference>-customer` so a retried start makes no second.
   */
  private async customerFor(client: StripeClient, save: SaveCardRequest, reference: string): Promise<string> {
    for (const token of save.savedTokens) {
      const saved = readStripeCardToken(token);
      if (saved) return saved.customer;
    }
    const created = await client.createCustomer(
      { metadata: { customer_id: save.customerId } },
      `${reference}-customer`,
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

  /** The browser's `session_id` is never used: the session is the one stored when it was created. */
  complete(input: CompleteInput): Promise<Completion> {
    return this.inquire({ ...input, background: false });
  }

  async inquire(input: InquiryInput): Promise<InquiryAnswer> {
    const client = clientFor(input.settings);
    const options = input.background ? { timeoutMs: BACKGROUND_TIMEOUT_MS, retries: 2 } : {};
    const sessionId = input.provider?.session_id;
    if (!sessionId) {
      // The start call never answered: the customer never got the session's URL, so nothing was
      // paid through it. A PaymentIntent carrying the reference would say otherwise.
      const found = await client.searchPaymentIntentsByMetadata(
        'reference_number',
        input.referenceNumber,
        options,
      );
      return found[0] ? intentAnswer(found[0]) : null;
    }
    return sessionAnswer(await client.retrieveCheckoutSession(sessionId, options));
  }

  async abandon(input: InquiryInput): Promise<InquiryAnswer> {
    const sessionId = input.provider?.session_id;
    if (!sessionId) return this.inquire(input);
    const client = clientFor(input.settings);
    try {
      await client.expireCheckoutSession(sessionId, `${input.referenceNumber}-expire`);
    } catch (error) {
      const failure = describeStripeError(error);
      if (failure.kind === 'unknown') throw error;
      // Refused: the session is no longer open (completed or expired already); its record decides.
    }
    const answer = sessionAnswer(await client.retrieveCheckoutSession(sessionId));
    return answer === 'open' ? 'open' : answer;
  }

  async notification(input: NotificationInput): Promise<ProviderNotification> {
    const client = clientFor(input.settings);
    let event: Stripe.Event;
    try {
      event = client.verifyWebhook(input.rawBody, input.headers['stripe-signature']);
    } catch (error) {
      if (error instanceof WebhookSecretMissing) throw new UnverifiedNotification(error.message);
      if (error instanceof Stripe.errors.StripeSignatureVerificationError || error instanceof SyntaxError)
        throw new UnverifiedNotification('Stripe-Signature does not verify');
      throw error;
    }
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
      case 'checkout.session.async_payment_failed': {
        const session = event.data.object;
        const reference = session.client_reference_id;
        const intentId =
          typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
        if (!reference || !intentId) return { kind: 'ignore' };
        const answer = intentAnswer(
          await client.retrievePaymentIntent(intentId, { withPaymentMethod: true }),
        );
        return answer === 'open' || answer === null
          ? { kind: 'ignore' }
          : { kind: 'outcome', referenceNumber: reference, outcome: answer };
      }
      case 'payment_intent.succeeded':
      case 'payment_intent.amount_capturable_updated': {
        let intent = event.data.object;
        const reference = intent.metadata?.reference_number;
        // A payment that saves its card: the event names the PaymentMethod only; the card is read
        // from it (an outcome settled without it would save nothing).
        if (reference && intent.setup_future_usage === 'off_session' && !expandedPaymentMethod(intent))
          intent = await client.retrievePaymentIntent(intent.id, { withPaymentMethod: true });
        const answer = intentAnswer(intent);
        if (!reference || answer === 'open' || answer === null) return { kind: 'ignore' };
        return { kind: 'outcome', referenceNumber: reference, outcome: answer };
      }
      default:
        // payment_intent.payment_failed among them: the customer may still pay on Stripe's page.
        return { kind: 'ignore' };
    }
  }

  /**
   * Charges a card saved through Stripe (contract §15): a PaymentIntent created and confirmed at once
   * with the card's Customer and PaymentMethod, `off_session=true`, manual capture when the gateway
   * authorizes, `metadata[reference_number]` (which inquiry searches by) and the Idempotency-Key
   * `<reference>-charge`. https://docs.stripe.com/api/payment_intents/create,
   * https://docs.stripe.com/payments/save-during-payment#charge-saved-payment-method.
   *
   * `succeeded` / `requires_capture` → success; a card_error → declined with its decline code,
   * `authentication_required` included (off-session, Stripe never asks the customer: the card must
   * be used on Stripe's page again, https://docs.stripe.com/payments/save-and-reuse#charge-saved-payment-method);
   * a request Stripe refused (e.g. a PaymentMethod detached since) → error, nothing charged; no
   * answer in time → throws, and the pay path's inquiry finds the PaymentIntent by its reference.
   * Used the same way when the customer picks a saved card on our page: Stripe holds no CVC to
   * check, and a card that needs authentication is declined (docs/gateways/stripe.md).
   */
  async pay(input: PayInput): Promise<AttemptOutcome> {
    if (!('gatewayToken' in input.card))
      throw new Error('The stripe driver takes new cards on Stripe’s page (start), never here');
    const saved = readStripeCardToken(input.card.gatewayToken);
    if (!saved) return { result: 'error', responseCode: 'unknown_card_token' };
    const client = clientFor(input.settings);
    let intent: Stripe.PaymentIntent;
    try {
      intent = await client.chargeOffSession(
        {
          referenceNumber: input.referenceNumber,
          amount: input.amount,
          currency: input.currencyCode,
          customer: saved.customer,
          paymentMethod: saved.paymentMethod,
          manualCapture: input.operation === 'authorize',
        },
        `${input.referenceNumber}-charge`,
      );
    } catch (error) {
      return this.chargeFailed(error);
    }
    const answer = intentAnswer(intent);
    if (answer === 'open' || answer === null)
      throw new Error(`An off-session PaymentIntent came back ${intent.status}; inquiry decides`);
    return { result: answer.result, responseCode: answer.responseCode, provider: answer.provider };
  }

  /**
   * A refused off-session charge: declined (a card_error, with its decline code), or an error
   * Stripe refused to carry out (nothing charged). Throws when the outcome is unknown (no answer in
   * time, a Stripe-side failure), with the sorted failure, never the SDK's error, which may carry
   * the request and its ids.
   */
  private chargeFailed(error: unknown): AttemptOutcome {
    const failure = describeStripeError(error);
    const { kind, type, statusCode, code, requestId } = failure;
    if (kind === 'unknown' && type === 'unexpected') throw error;
    this.logger.warn({ kind, type, code, requestId }, 'Stripe did not charge a saved card');
    const intentId = error instanceof Stripe.errors.StripeError ? error.payment_intent?.id : undefined;
    const provider = intentId ? { payment_intent: intentId } : undefined;
    if (kind === 'declined') {
      const declineCode = failure.declineCode ?? code ?? 'card_declined';
      return { result: 'declined', responseCode: declineCode.slice(0, 32), provider };
    }
    if (kind === 'refused') return { result: 'error', responseCode: (code ?? 'stripe_refused').slice(0, 32) };
    throw new Error(`Stripe did not answer an off-session charge (${type})`, {
      cause: { kind, type, statusCode, code, requestId },
    });
  }

  async followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    const client = clientFor(input.settings);
    const key = `${input.referenceNumber}-${input.operation}-${input.operationKey ?? randomBytes(8).toString('hex')}`;
    try {
      const intentId = await this.intentOf(client, input.provider);
      if (!intentId) return { result: 'failed', message: 'Stripe has no payment for this transaction.' };
      const amount = input.partial ? { amount: input.amount, currency: input.currencyCode } : null;
      if (input.operation === 'capture') await client.capturePaymentIntent(intentId, amount, key);
      else if (input.operation === 'void') await client.cancelPaymentIntent(intentId, key);
      else
        await client.createRefund(
          { paymentIntent: intentId, amount: input.amount, currency: input.currencyCode },
          key,
        );
      return { result: 'success' };
    } catch (error) {
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
      if (failure.kind === 'unknown') return { result: 'unknown' };
      return { result: 'failed', message: `Stripe refused the ${input.operation}: ${failure.message}` };
    }
  }

  private async intentOf(
    client: StripeClient,
    provider: ProviderData | null | undefined,
  ): Promise<string | null> {
    if (provider?.payment_intent) return provider.payment_intent;
    if (!provider?.session_id) return null;
    const session = await client.retrieveCheckoutSession(provider.session_id);
    return typeof session.payment_intent === 'string'
      ? session.payment_intent
      : (session.payment_intent?.id ?? null);
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

/** When the session stops taking payment: the transaction's deadline, within Stripe's bounds. */
function sessionExpiry(deadline: Date | undefined): Date {
  const now = Date.now();
  const at = deadline?.getTime() ?? now + MAX_SESSION_MS;
  return new Date(Math.min(Math.max(at, now + MIN_SESSION_MS), now + MAX_SESSION_MS));
}

/** What a session's record says: open, paid (its PaymentIntent decides), or no longer payable. */
function sessionAnswer(session: Stripe.Checkout.Session): InquiryAnswer {
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  if (session.status === 'open') return 'open';
  if (session.status === 'complete') return intent ? intentAnswer(intent) : 'open';
  // expired: never paid; a card declined on the page before it expired makes it a decline
  if (intent?.last_payment_error) return declined(intent);
  return null;
}

/**
 * What a PaymentIntent's status means for the attempt (contract §20). When its PaymentMethod is
 * expanded, the outcome describes the card; when it was set up for off-session use, it also carries
 * our token of the saved card (contract §15).
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
      return declined(intent);
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
    responseCode: (error?.decline_code ?? error?.code ?? intent.status).slice(0, 32),
    amount: amountOf(intent),
    currencyCode: intent.currency.toUpperCase(),
    provider: { payment_intent: intent.id },
  };
}
