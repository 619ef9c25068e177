import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { parse as parseLosslessJson } from 'lossless-json';
import { CurrenciesService } from '../../currencies/currencies.service';
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
  type ProviderOutcome,
  type ProviderNotification,
  type RedirectDriver,
  type StartInput,
  type StartResult,
  UnverifiedNotification,
} from '../adapters/gateway-adapter';
import { MpgsClient, type MpgsCallLogger } from '../providers/mpgs/mpgs-client';
import { MpgsApiError } from '../providers/mpgs/mpgs-errors';
import type { MpgsSettingsInput } from '../providers/mpgs/mpgs-settings';
import type { MpgsCardDetails, MpgsOrder, MpgsToken, MpgsTransaction } from '../providers/mpgs/mpgs-types';
import { ProviderDriver } from './provider-driver';

export const MPGS_PG = 'mpgs';

/**
 * MPGS says a session lasts "usually about 15 minutes"
 * (https://na.gateway.mastercard.com/api/documentation/integrationGuidelines/hostedSession/sessionBasics.html).
 * A customer who picks MPGS again within that time gets the same session back (`resume_until`);
 * later, a new one.
 */
const SESSION_RESUMABLE_MS = 15 * 60_000;

/**
 * How long an order-less checkout session is taken to be payable: four times the usual lifetime
 * above, so that a slow payer, or a session the gateway keeps longer, cannot pay an attempt we have
 * already given up as never paid.
 */
const SESSION_PAYABLE_MS = 60 * 60_000;

/** MPGS `order.description`: at most 127 characters (INITIATE CHECKOUT). */
const DESCRIPTION_MAX = 127;

/** MPGS `transaction.id`: at most 40 characters (Identifiers). */
const TRANSACTION_ID_HEX = 32;

/** The transaction types that pay an order; every other one (CAPTURE, REFUND, VOID_*) follows one. */
const PAYING_TYPES = new Set(['PAYMENT', 'AUTHORIZATION']);

/**
 * The `mpgs` driver (contract §20; docs/gateways/mpgs.md): Mastercard Gateway Hosted Checkout on
 * {@link MpgsClient}, REST API version 100 unless the gateway says otherwise.
 *
 * - start: INITIATE CHECKOUT with `order.id` = the attempt's reference, the amount in the
 *   currency's digits, our return, cancel and notify URLs; the customer gets our page that loads
 *   `checkout.min.js` (`script_page`)
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/establishing-a-session/);
 * - complete: the browser's `resultIndicator` is compared with the session's `successIndicator`,
 *   then the order is retrieved either way: RETRIEVE ORDER decides, a mismatch proves nothing
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/interpreting-the-response/);
 * - notification: `X-Notification-Secret` first (refused when the gateway has none), then the
 *   order it names is retrieved
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/gateway-features/webhook-noti/);
 * - capture, void, refund: transaction operations, `PUT …/order/{reference}/transaction/{id}` with an
 *   id derived from the operation's key, so a retry names the same transaction
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/subsequent-operations/,
 *   https://developer.mastercard.com/mastercard-gateway/documentation/concepts/order-trans-concepts/identifiers/);
 * - saved cards (contract §15): a session that saves is marked `save_card`; once its order is paid,
 *   CREATE TOKEN from the session stores the card at the gateway, and the token is our gateway
 *   token of it (with the repository's "Unique Account Identifier" management the same card keeps
 *   one token, which then also tells one card from another). {@link pay} charges a token: PAY with
 *   `storedOnFile: STORED`, by the merchant (auto-debit) or by the cardholder on our page with the
 *   security code (https://developer.mastercard.com/mastercard-gateway/documentation/security-and-fraud/cred-file-transc/).
 *
 * MPGS documents no operation that ends a checkout session, so abandoning one only reads the order.
 */
@Injectable()
export class MpgsDriver extends ProviderDriver implements RedirectDriver {
  private readonly callLogger: MpgsCallLogger = {
    info: (fields, message) => this.logger.log(fields, message),
    warn: (fields, message) => this.logger.warn(fields, message),
  };

  constructor(private readonly currencies: CurrenciesService) {
    super(MPGS_PG, 'MpgsDriver');
  }

  async start(input: StartInput): Promise<StartResult> {
    const client = this.clientFor(input.settings);
    const session = await client.initiateCheckout({
      orderId: input.referenceNumber,
      amount: input.amount,
      currency: input.currencyCode,
      digits: await this.digitsOf(input.currencyCode),
      description: input.description.slice(0, DESCRIPTION_MAX),
      operation: input.operation === 'authorize' ? 'AUTHORIZE' : 'PURCHASE',
      returnUrl: input.returnUrl,
      cancelUrl: input.cancelUrl,
      notificationUrl: input.notifyUrl,
    });
    const scriptUrl = client.checkoutScriptUrl;
    const now = Date.now();
    return {
      provider: {
        session_id: session.sessionId,
        success_indicator: session.successIndicator,
        script_url: scriptUrl,
        started_at: new Date(now).toISOString(),
        resume_until: new Date(now + SESSION_RESUMABLE_MS).toISOString(),
        ...(input.saveCard ? { save_card: '1' } : {}),
      },
      destination: { kind: 'script_page', scriptUrl, sessionId: session.sessionId },
    };
  }

  /** The customer's return: the indicator is a hint, the order decides (contract §20). */
  async complete(input: CompleteInput): Promise<Completion> {
    const expected = input.provider?.success_indicator;
    const matches = expected
      ? MpgsClient.resultIndicatorMatches(input.params.resultIndicator, expected)
      : false;
    const answer = await this.inquire({ ...input, background: false });
    const paid = answer !== null && answer !== 'open' && answer.result === 'success';
    if (matches !== paid) {
      this.logger.warn(
        { referenceNumber: input.referenceNumber, indicatorMatches: matches, orderPaid: paid },
        'The resultIndicator and the MPGS order disagree; the order decides',
      );
    }
    return answer;
  }

  async inquire(input: InquiryInput): Promise<InquiryAnswer> {
    const order = await this.orderOf(input);
    if (!order) return sessionMayPay(input.provider) ? 'open' : null;
    const answer = orderAnswer(order);
    return answer !== 'open' && answer?.result === 'success' && input.provider?.save_card
      ? this.withSavedCard(answer, input)
      : answer;
  }

  /**
   * A paid session that saves its card: CREATE TOKEN from the session (contract §15). The payment
   * stands whatever happens here; a gateway that refuses to tokenize (no token repository, a card
   * scheme it does not store) leaves the card unsaved, logged. No answer in time throws: the
   * outcome is asked again later, and the card saved then.
   */
  private async withSavedCard(answer: ProviderOutcome, input: InquiryInput): Promise<ProviderOutcome> {
    const sessionId = input.provider?.session_id;
    if (!sessionId) return answer;
    let token: MpgsToken;
    try {
      token = await this.clientFor(input.settings).tokenizeSession(sessionId, {
        background: input.background,
      });
    } catch (error) {
      if (!(error instanceof MpgsApiError) || error.status >= 500) throw error;
      this.logger.warn(
        { referenceNumber: input.referenceNumber, cause: error.errorCause },
        'MPGS did not save the card of a paid session; the payment stands, the card is not saved',
      );
      return answer;
    }
    const card = cardOfToken(token);
    return card ? { ...answer, card, gatewayToken: token.token } : answer;
  }

  /**
   * The customer left the session (canceled there, or picked a method again). MPGS documents no
   * operation that ends a checkout session, so the order alone says what happened: no order, nothing
   * was paid (null); a payment under way stays open; otherwise its outcome. A payment made later on
   * the left session reaches us as a notification for a settled attempt, logged for a person.
   */
  async abandon(input: InquiryInput): Promise<InquiryAnswer> {
    const order = await this.orderOf(input);
    return order ? orderAnswer(order) : null;
  }

  async notification(input: NotificationInput): Promise<ProviderNotification> {
    const client = this.clientFor(input.settings);
    if (!client.settings.notificationSecret)
      throw new UnverifiedNotification('The gateway has no notification_secret');
    if (!client.verifyNotification(input.headers))
      throw new UnverifiedNotification('X-Notification-Secret does not match');
    const notice = readTransaction(input.rawBody);
    const reference = notice?.order?.id;
    if (!notice || typeof reference !== 'string' || !PAYING_TYPES.has(notice.transaction?.type ?? '')) {
      // Captures, refunds and voids are ours already (followUp); anything else is not a payment.
      return { kind: 'ignore' };
    }
    const order = await client.retrieveOrder(reference);
    const answer = orderAnswer(order);
    return answer === 'open' || answer === null
      ? { kind: 'ignore' }
      : { kind: 'outcome', referenceNumber: reference, outcome: answer };
  }

  /**
   * Charges a saved card (contract §15): PAY, or AUTHORIZE, with its token on a new order named by
   * the attempt's reference, under a transaction id derived from it, so a retry names the same
   * transaction. The cardholder on our page is a CIT with the security code they typed; auto-debit
   * is merchant-initiated. MPGS refusing the request (an unknown token) → error, nothing charged;
   * no answer, or a transaction not yet decided → throws, and inquiry reads the order later.
   */
  async pay(input: PayInput): Promise<AttemptOutcome> {
    if (!('gatewayToken' in input.card))
      throw new Error('The mpgs driver takes new cards on the Hosted Payment Page (start), never here');
    const client = this.clientFor(input.settings);
    let done: MpgsTransaction;
    try {
      done = await client.payWithToken({
        orderId: input.referenceNumber,
        transactionId: hexId(`${input.referenceNumber}\npay`),
        amount: input.amount,
        currency: input.currencyCode,
        digits: await this.digitsOf(input.currencyCode),
        token: input.card.gatewayToken,
        operation: input.operation === 'authorize' ? 'AUTHORIZE' : 'PAY',
        ...(input.card.cardholderPresent || input.card.cvc !== undefined
          ? { cardholder: input.card.cvc !== undefined ? { securityCode: input.card.cvc } : {} }
          : {}),
      });
    } catch (error) {
      if (!(error instanceof MpgsApiError) || error.status >= 500) throw error;
      this.logger.warn(
        { referenceNumber: input.referenceNumber, cause: error.errorCause, field: error.field },
        'MPGS refused to charge a saved card',
      );
      return { result: 'error', responseCode: error.errorCause.slice(0, 32) };
    }
    const responseCode = (done.response?.gatewayCode ?? done.result).slice(0, 32);
    const provider = { transaction_id: done.transaction.id };
    if (done.result === 'SUCCESS') return { result: 'success', responseCode, provider };
    if (done.result === 'FAILURE') return { result: 'declined', responseCode, provider };
    throw new Error(`MPGS answered a saved-card payment ${done.result}; inquiry decides`);
  }

  async followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    const client = this.clientFor(input.settings);
    const orderId = input.referenceNumber;
    const transactionId = transactionIdFor(input);
    try {
      let done: MpgsTransaction;
      if (input.operation === 'void') {
        const target = payingTransaction(await client.retrieveOrder(orderId), 'AUTHORIZATION');
        if (!target) return { result: 'failed', message: 'MPGS has no authorization to void on this order.' };
        done = await client.void(orderId, transactionId, target.transaction.id);
      } else {
        const digits = await this.digitsOf(input.currencyCode);
        const args = [orderId, transactionId, input.amount, input.currencyCode, digits] as const;
        done = input.operation === 'capture' ? await client.capture(...args) : await client.refund(...args);
      }
      if (done.result === 'SUCCESS') return { result: 'success' };
      const code = done.response?.gatewayCode ?? done.result;
      if (done.result === 'FAILURE')
        return { result: 'failed', message: `MPGS refused the ${input.operation}: ${code}.` };
      return { result: 'unknown' }; // PENDING, UNKNOWN: the gateway has not decided yet
    } catch (error) {
      const refused = error instanceof MpgsApiError && error.status < 500;
      this.logger.warn(
        {
          operation: input.operation,
          orderId,
          transactionId,
          failure: error instanceof Error ? error.name : 'unknown',
          cause: error instanceof MpgsApiError ? error.errorCause : undefined,
        },
        'MPGS did not carry out an operation',
      );
      if (!refused) return { result: 'unknown' };
      return {
        result: 'failed',
        message: `MPGS refused the ${input.operation}: ${error.explanation ?? error.errorCause}`,
      };
    }
  }

  /** RETRIEVE ORDER by the attempt's reference; null when MPGS has no order of it (nobody paid yet). */
  private async orderOf(input: InquiryInput): Promise<MpgsOrder | null> {
    try {
      return await this.clientFor(input.settings).retrieveOrder(input.referenceNumber, {
        background: input.background,
      });
    } catch (error) {
      if (error instanceof MpgsApiError && error.status === 404) return null;
      throw error;
    }
  }

  /** The currency's digits as Checkout is configured with them (contract §20 "Provider calls"). */
  private async digitsOf(code: string): Promise<number> {
    const digits = (await this.currencies.lookup(code))?.digits ?? CurrenciesService.isoDigits(code);
    if (digits === null) throw new Error(`No digits known for currency ${code}`);
    return digits;
  }

  private clientFor(settings: DriverSettingsValues): MpgsClient {
    const text = (key: string) => (typeof settings[key] === 'string' ? settings[key] : undefined);
    const input: MpgsSettingsInput = {
      merchant_id: text('merchant_id') ?? '',
      api_password: text('api_password') ?? '',
      api_base_url: text('api_base_url') ?? '',
      api_version: typeof settings.api_version === 'boolean' ? undefined : settings.api_version,
      notification_secret: text('notification_secret'),
      merchant_name: text('merchant_name'),
      timeout_ms: typeof settings.timeout_ms === 'number' ? settings.timeout_ms : undefined,
    };
    return new MpgsClient(input, { logger: this.callLogger });
  }
}

/**
 * What an order says of the attempt (contract §20): a successful PAYMENT or AUTHORIZATION → paid or
 * authorized (whatever followed it: captures, refunds, a void); a FAILED order → declined, with the
 * last payment's `gatewayCode`; anything else (INITIATED, a payment still UNKNOWN) → still open.
 * The amount and currency are the order's: the pay path never settles a mismatch.
 */
export function orderAnswer(order: MpgsOrder): InquiryAnswer {
  const base = { amount: String(order.amount), currencyCode: order.currency };
  const paid = payingTransaction(order);
  if (paid) {
    return {
      result: 'success',
      responseCode: (paid.response?.gatewayCode ?? order.status).slice(0, 32),
      ...base,
      provider: { transaction_id: paid.transaction.id },
    };
  }
  const tried = (order.transaction ?? []).filter((t) => PAYING_TYPES.has(t.transaction?.type ?? '')).at(-1);
  if (order.status === 'FAILED' || tried?.result === 'FAILURE') {
    return {
      result: 'declined',
      responseCode: (tried?.response?.gatewayCode ?? order.status).slice(0, 32),
      ...base,
      ...(tried ? { provider: { transaction_id: tried.transaction.id } } : {}),
    };
  }
  return 'open';
}

/** The order's successful payment (PAYMENT or AUTHORIZATION), or only of `type`. */
function payingTransaction(order: MpgsOrder, type?: string): MpgsTransaction | null {
  return (
    (order.transaction ?? []).find(
      (t) =>
        t.result === 'SUCCESS' &&
        PAYING_TYPES.has(t.transaction?.type ?? '') &&
        (type === undefined || t.transaction.type === type),
    ) ?? null
  );
}

/**
 * Whether an order-less session may still be paid: it was created (we have its id) less than
 * {@link SESSION_PAYABLE_MS} ago. Without a stored session the customer never got one.
 */
function sessionMayPay(provider: ProviderData | null | undefined): boolean {
  if (!provider?.session_id) return false;
  const started = Date.parse(provider.started_at ?? '');
  return Number.isNaN(started) || Date.now() - started < SESSION_PAYABLE_MS;
}

/**
 * Our id for an operation's new MPGS transaction: derived from the operation's key when the caller
 * gives one, so sending it again names the same transaction and MPGS does it once; else new.
 */
function transactionIdFor(input: FollowUpInput): string {
  if (!input.operationKey) return randomBytes(TRANSACTION_ID_HEX / 2).toString('hex');
  return hexId(`${input.referenceNumber}\n${input.operation}\n${input.operationKey}`);
}

/** A transaction id that is the same every time for the same `seed`. */
function hexId(seed: string): string {
  return createHash('sha256').update(seed, 'utf8').digest('hex').slice(0, TRANSACTION_ID_HEX);
}

/**
 * The card a token stands for, as contract §15 keeps it: brand, last four, expiry. MPGS keeps no
 * name with it, and the token stands in for a fingerprint (one card, one token, with the
 * repository's "Unique Account Identifier" management). Null when the answer lacks a part.
 */
function cardOfToken(token: MpgsToken): ProviderCard | null {
  const details: MpgsCardDetails | undefined = token.sourceOfFunds?.provided?.card;
  const last4 = /(\d{4})$/.exec(details?.number ?? '')?.[1];
  const expiry = expiryOf(details?.expiry);
  if (!details?.brand || !last4 || !expiry) return null;
  return {
    brand: brandName(details.brand),
    last4,
    expiryMonth: expiry.month,
    expiryYear: expiry.year,
    nameOnCard: '',
    fingerprint: token.token,
  };
}

/** `"MMYY"` (tokens) or `{month, year}` (transactions) → numbers, the year in four digits. */
function expiryOf(expiry: MpgsCardDetails['expiry']): { month: number; year: number } | null {
  const [month, year] =
    typeof expiry === 'string'
      ? [expiry.slice(0, 2), expiry.slice(2)]
      : [expiry?.month ?? '', expiry?.year ?? ''];
  const m = Number(month);
  const y = Number(year);
  if (!/^\d{1,2}$/.test(month) || !/^\d{2}(\d{2})?$/.test(year) || m < 1 || m > 12) return null;
  return { month: m, year: y < 100 ? 2000 + y : y };
}

/** MPGS's brand (`MASTERCARD`, `VISA`, `AMEX`, …) as a display name. */
function brandName(brand: string): string {
  const known: Record<string, string> = { MASTERCARD: 'Mastercard', VISA: 'Visa', AMEX: 'American Express' };
  return known[brand] ?? brand.charAt(0) + brand.slice(1).toLowerCase();
}

/** A notification's body (the RETRIEVE TRANSACTION answer), numbers kept as text; null when unreadable. */
function readTransaction(rawBody: string): Partial<MpgsTransaction> | null {
  try {
    const value: unknown = parseLosslessJson(rawBody, null, (digits: string) => digits);
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}
