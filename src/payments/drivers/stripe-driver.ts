import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { Gateway } from '../../gateways/gateway.entity';
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
  type ProviderData,
  type ProviderNotification,
  type ProviderOutcome,
  type RedirectDriver,
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
import { BACKGROUND_TIMEOUT_MS, type StripeSettings } from '../providers/stripe/stripe-settings';

export const STRIPE_PG = 'stripe';

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
 *   https://docs.stripe.com/api/payment_intents/cancel, https://docs.stripe.com/api/refunds/create.
 */
@Injectable()
export class StripeDriver implements RedirectDriver {
  readonly name = STRIPE_PG;
  readonly flow = 'redirect';
  private readonly logger = new Logger('StripeDriver');

  serves(gateway: Gateway): boolean {
    return gateway.pg === STRIPE_PG;
  }

  async start(input: StartInput): Promise<StartResult> {
    const client = clientFor(input.settings);
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
      },
      `${input.referenceNumber}-session`,
    );
    if (!session.url) throw new Error(`Stripe session ${session.id} came back without a url`);
    return {
      provider: { session_id: session.id, url: session.url },
      destination: { kind: 'redirect', url: session.url },
    };
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
        const answer = intentAnswer(await client.retrievePaymentIntent(intentId));
        return answer === 'open' || answer === null
          ? { kind: 'ignore' }
          : { kind: 'outcome', referenceNumber: reference, outcome: answer };
      }
      case 'payment_intent.succeeded':
      case 'payment_intent.amount_capturable_updated': {
        const intent = event.data.object;
        const reference = intent.metadata?.reference_number;
        const answer = intentAnswer(intent);
        if (!reference || answer === 'open' || answer === null) return { kind: 'ignore' };
        return { kind: 'outcome', referenceNumber: reference, outcome: answer };
      }
      default:
        // payment_intent.payment_failed among them: the customer may still pay on Stripe's page.
        return { kind: 'ignore' };
    }
  }

  /** Saved cards are charged off-session by a later driver step; nothing is charged here. */
  pay(): Promise<AttemptOutcome> {
    return Promise.reject(new Error('The stripe driver takes the card on Stripe’s page (start)'));
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

/** What a PaymentIntent's status means for the attempt (contract §20). */
function intentAnswer(intent: Stripe.PaymentIntent): InquiryAnswer {
  const base = {
    amount: amountOf(intent),
    currencyCode: intent.currency.toUpperCase(),
    provider: { payment_intent: intent.id },
  };
  switch (intent.status) {
    case 'succeeded':
    case 'requires_capture':
      return { result: 'success', responseCode: intent.status, ...base };
    case 'canceled':
      return declined(intent);
    case 'requires_payment_method':
      return intent.last_payment_error ? declined(intent) : 'open';
    default:
      return 'open'; // processing, requires_action, requires_confirmation: not decided yet
  }
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
