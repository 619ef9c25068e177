import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { parse as parseLosslessJson } from 'lossless-json';
import { Money } from '../../../common/money/money';
import { CurrenciesModule } from '../../../currencies/currencies.module';
import { CurrenciesService } from '../../../currencies/currencies.service';
import {
  type AttemptOutcome,
  type ChargeAgreement,
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
  type ProviderCard,
  type ProviderData,
  type ProviderOutcome,
  type ProviderNotification,
  type RedirectDriver,
  type StartInput,
  type StartResult,
  ProviderCallFailed,
  UnverifiedNotification,
} from '../../adapters/gateway-adapter';
import { MpgsClient, type MpgsCallLogger, type MpgsCallOptions } from '../../providers/mpgs/mpgs-client';
import { MpgsApiError } from '../../providers/mpgs/mpgs-errors';
import type { MpgsSettingsInput } from '../../providers/mpgs/mpgs-settings';
import type {
  MpgsAgreement,
  MpgsCardDetails,
  MpgsOrder,
  MpgsToken,
  MpgsTransaction,
} from '../../providers/mpgs/mpgs-types';
import { ProviderTransportError } from '../../providers/provider-http';
import { ProviderDriver } from '../provider-driver';
import { MPGS_CATALOGUE } from './mpgs.catalogue';

export const MPGS_PG = MPGS_CATALOGUE.pg;

/**
 * MPGS: "A single session lasts usually about 15 minutes"
 * (https://na.gateway.mastercard.com/api/documentation/integrationGuidelines/hostedSession/sessionBasics.html),
 * and INITIATE CHECKOUT: "The gateway automatically expires the session"
 * (https://evopaymentsmexico.gateway.mastercard.com/api/documentation/apiDocumentation/nvp/version/latest/operation/Hosted%20Checkout%3A%20Initiate%20Checkout.html).
 * A customer who picks MPGS again is sent back to the same session for 10 minutes (`resume_until`),
 * well inside that, so that nobody is handed a session MPGS has already expired.
 */
const SESSION_RESUMABLE_MS = 10 * 60_000;

/**
 * How long a checkout session is taken to be able to pay (`payable_until`): four times the usual
 * lifetime above, so that a slow payer, or a session the gateway keeps longer than usual, cannot
 * pay an attempt we have given up as never paid. After it, an order with no payment says nothing
 * was paid and nothing can be; before it, the session is open. docs/gateways/mpgs.md asks to check
 * this on the bank's test host before going live.
 */
const SESSION_PAYABLE_MS = 60 * 60_000;

/** MPGS `order.description`: at most 127 characters (INITIATE CHECKOUT). */
const DESCRIPTION_MAX = 127;

/** MPGS `transaction.id`: at most 40 characters (Identifiers). */
const TRANSACTION_ID_HEX = 32;

/** The transaction types that pay an order; every other one (AUTHENTICATION, CAPTURE, REFUND, VOID_*) does not. */
const PAYING_TYPES = new Set(['PAYMENT', 'AUTHORIZATION']);

/** Our agreement types (contract §15) as MPGS names them (`agreement.type`). */
const AGREEMENT_TYPES: Readonly<Record<string, MpgsAgreement['type']>> = {
  recurring: 'RECURRING',
  installment: 'INSTALLMENT',
  unscheduled: 'UNSCHEDULED',
};

/** An order with a payment MPGS has not decided yet (`UNKNOWN`, `PENDING`): not an answer to guess from. */
export class MpgsPaymentUndecided extends Error {
  constructor(referenceNumber: string, result: string) {
    super(`MPGS has not decided the payment of order ${referenceNumber} yet (${result})`);
    this.name = 'MpgsPaymentUndecided';
  }
}

/**
 * The `mpgs` driver (contract §20, §20.1; docs/gateways/mpgs.md): Mastercard Gateway Hosted Checkout
 * on {@link MpgsClient}, REST API version 100 unless the gateway says otherwise.
 *
 * - start: INITIATE CHECKOUT with `order.id` = the attempt's reference, the amount in the
 *   currency's digits, our return, cancel and notify URLs; the customer gets our page that loads
 *   `checkout.min.js` (`script_page`)
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/establishing-a-session/);
 *   `resume_until` and `payable_until` bound the session's life as MPGS documents it (above).
 * - inquire / abandon / complete: RETRIEVE ORDER decides ({@link orderAnswer}). A decline while the
 *   session may still take a payment is not final: Hosted Checkout keeps the payer on its page to
 *   try again after a decline unless INITIATE CHECKOUT passes `interaction.redirectMerchantUrl` and
 *   `retryAttemptCount` (which this driver does not), so the decline carries `payerMayRetry`
 *   ("Customize Redirect and Retry Behavior",
 *   https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/customizing-the-checkout/customizing-redirect-and-retry-behavior/).
 *   MPGS documents no operation that ends a checkout session: abandoning one reads the order.
 * - complete: the browser's `resultIndicator` is compared with the session's `successIndicator`,
 *   then the order is retrieved either way: the order decides, a mismatch proves nothing
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/interpreting-the-response/);
 *   a customer back with nothing paid (3-D Secure abandoned, only authentication on the order) while
 *   the session may still pay is `'left'`.
 * - notification: `X-Notification-Secret` first (refused when the gateway has none), then `ask`: the
 *   pay path retrieves the order through {@link inquire}
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/gateway-features/webhook-noti/).
 * - capture, void, refund: transaction operations, `PUT …/order/{reference}/transaction/{id}` with an
 *   id derived from the operation's key. MPGS does not document what a repeated id answers, so a
 *   repeat (or a refusal) is decided from the order: our transaction there → its result; absent →
 *   sent (https://developer.mastercard.com/mastercard-gateway/documentation/concepts/order-trans-concepts/identifiers/).
 * - saved cards (contract §15): a session that saves is marked `save_card` and carries
 *   `storedOnFile: TO_BE_STORED`; once its order is paid, CREATE TOKEN from the session stores the
 *   card at the gateway. {@link pay} charges a token: PAY with `storedOnFile: STORED`, by the
 *   merchant (auto-debit, `MERCHANT`, with the agreement) or by the cardholder on our page
 *   (`INTERNET`) (https://developer.mastercard.com/mastercard-gateway/documentation/security-and-fraud/cred-file-transc/).
 *
 * Every call of a request shares its deadline (`input.deadline`, contract §17); MPGS's error
 * answers reach the pay path as {@link ProviderCallFailed}.
 */
@Injectable()
export class MpgsDriver extends ProviderDriver implements RedirectDriver {
  static readonly catalogue = MPGS_CATALOGUE;
  /** CurrenciesService: the digits of the currency, for MPGS amounts. */
  static readonly imports = [CurrenciesModule];

  private readonly callLogger: MpgsCallLogger = {
    info: (fields, message) => this.logger.log(fields, message),
    warn: (fields, message) => this.logger.warn(fields, message),
  };

  constructor(private readonly currencies: CurrenciesService) {
    super(MPGS_PG, 'MpgsDriver');
  }

  async start(input: StartInput): Promise<StartResult> {
    const client = this.clientFor(input.settings);
    const agreement = input.saveCard ? agreementOf(input.saveCard.agreement) : null;
    const session = await client
      .initiateCheckout(
        {
          orderId: input.referenceNumber,
          amount: input.amount,
          currency: input.currencyCode,
          digits: await this.digitsOf(input.currencyCode),
          description: input.description.slice(0, DESCRIPTION_MAX),
          operation: input.operation === 'authorize' ? 'AUTHORIZE' : 'PURCHASE',
          returnUrl: input.returnUrl,
          cancelUrl: input.cancelUrl,
          notificationUrl: input.notifyUrl,
          ...(input.saveCard ? { storedOnFile: 'TO_BE_STORED' as const } : {}),
          ...(agreement ? { agreement } : {}),
        },
        callOptions(input),
      )
      .catch((error: unknown) => {
        throw providerFailure(error);
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
        payable_until: new Date(now + SESSION_PAYABLE_MS).toISOString(),
        ...(input.saveCard ? { save_card: '1' } : {}),
      },
      destination: { kind: 'script_page', scriptUrl, sessionId: session.sessionId },
    };
  }

  /**
   * The customer's return: the indicator is a hint, the order decides (contract §20). Nothing paid
   * while the session may still pay: `'left'` — unless the indicator matches (MPGS says it approved
   * a payment its order does not show yet: being confirmed).
   */
  async complete(input: CompleteInput): Promise<Completion> {
    const expected = input.provider?.success_indicator;
    const matches = expected
      ? MpgsClient.resultIndicatorMatches(input.params.resultIndicator, expected)
      : false;
    const answer = await this.inquire({ ...input, background: false });
    if (answer === 'open') return matches ? 'open' : 'left';
    const paid = answer !== null && answer.result === 'success';
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
    const answer = orderAnswer(order, input.provider, input.referenceNumber);
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
      token = await this.clientFor(input.settings).tokenizeSession(sessionId, callOptions(input));
    } catch (error) {
      if (!(error instanceof MpgsApiError) || error.status >= 500 || error.status === 429)
        throw providerFailure(error);
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
   * operation that ends a checkout session, so the order alone says what happened, as for
   * {@link inquire}: `'open'` while the session may still take the payment (the pay path keeps
   * watching it), its outcome, or null once nothing was paid and the session is over.
   */
  abandon(input: InquiryInput): Promise<InquiryAnswer> {
    return this.inquire(input);
  }

  /**
   * A verified notification names one of our orders: it is no proof by itself (a retry may follow a
   * decline on the same session), so the pay path asks ({@link inquire}). Notifications of other
   * transactions (our own captures, refunds and voids, 3-D Secure authentications) change nothing.
   */
  notification(input: NotificationInput): Promise<ProviderNotification> {
    const client = this.clientFor(input.settings);
    if (!client.settings.notificationSecret)
      return Promise.reject(new UnverifiedNotification('The gateway has no notification_secret'));
    if (!client.verifyNotification(input.headers))
      return Promise.reject(new UnverifiedNotification('X-Notification-Secret does not match'));
    const notice = readTransaction(input.rawBody);
    const reference = notice?.order?.id;
    if (
      !notice ||
      typeof reference !== 'string' ||
      reference === '' ||
      !PAYING_TYPES.has(notice.transaction?.type ?? '')
    ) {
      return Promise.resolve({ kind: 'ignore' });
    }
    return Promise.resolve({ kind: 'ask', referenceNumber: reference });
  }

  /**
   * Charges a saved card (contract §15): PAY, or AUTHORIZE, with its token on a new order named by
   * the attempt's reference, under a transaction id derived from it, with `storedOnFile: STORED`.
   * The cardholder on our page is a CIT (`INTERNET`, with the security code they typed); auto-debit
   * is merchant-initiated (`MERCHANT`) under the transaction's agreement ("Credential on File
   * Transactions"). MPGS refusing the request (an unknown token) → error, nothing charged; no answer,
   * or a transaction not yet decided → throws, and inquiry reads the order later.
   */
  async pay(input: PayInput): Promise<AttemptOutcome> {
    if (!('gatewayToken' in input.card))
      throw new Error('The mpgs driver takes new cards on the Hosted Payment Page (start), never here');
    const client = this.clientFor(input.settings);
    const present = input.card.cardholderPresent === true || input.card.cvc !== undefined;
    const agreement = present ? null : agreementOf(input.agreement);
    let done: MpgsTransaction;
    try {
      done = await client.payWithToken(
        {
          orderId: input.referenceNumber,
          transactionId: hexId(`${input.referenceNumber}\npay`),
          amount: input.amount,
          currency: input.currencyCode,
          digits: await this.digitsOf(input.currencyCode),
          token: input.card.gatewayToken,
          operation: input.operation === 'authorize' ? 'AUTHORIZE' : 'PAY',
          ...(present
            ? { cardholder: input.card.cvc !== undefined ? { securityCode: input.card.cvc } : {} }
            : {}),
          ...(agreement ? { agreement } : {}),
        },
        callOptions(input),
      );
    } catch (error) {
      if (!(error instanceof MpgsApiError) || error.status >= 500 || error.retryable) throw error;
      this.logger.warn(
        { referenceNumber: input.referenceNumber, cause: error.errorCause, field: error.field },
        'MPGS refused to charge a saved card',
      );
      return { result: 'error', responseCode: error.errorCause.slice(0, 32) };
    }
    const responseCode = (done.response?.gatewayCode ?? done.result).slice(0, 32);
    const provider = { transaction_id: done.transaction.id };
    if (done.result === 'SUCCESS') {
      if (
        !sameMoney(
          done.transaction.amount ?? done.order.amount,
          done.transaction.currency ?? done.order.currency,
          input,
        )
      )
        throw new Error(
          `MPGS answered a saved-card payment of ${input.referenceNumber} for another amount; inquiry decides`,
        );
      return { result: 'success', responseCode, provider };
    }
    if (done.result === 'FAILURE') return { result: 'declined', responseCode, provider };
    throw new MpgsPaymentUndecided(input.referenceNumber, done.result);
  }

  /**
   * Capture, void or refund (contract §20) as a transaction operation under an id derived from the
   * operation's key. MPGS does not document that a transaction id sent again answers the first
   * outcome, so nothing is decided from a repeat's answer: a `repeat` (an earlier send lost its
   * answer) first looks for our transaction in the order, and a refusal is checked the same way
   * (MPGS may be refusing the id it already has). Our transaction in the order → its result; absent
   * → sent now. An answer for another amount or currency is no success (`unknown`, logged).
   */
  async followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    const client = this.clientFor(input.settings);
    const orderId = input.referenceNumber;
    const transactionId = transactionIdFor(input);
    const options = callOptions(input);
    try {
      let order: MpgsOrder | null = null;
      if (input.repeat) {
        order = await client.retrieveOrder(orderId, options);
        const mine = transactionOf(order, transactionId);
        if (mine) return this.operationOutcome(input, mine);
      }
      let done: MpgsTransaction;
      if (input.operation === 'void') {
        const target = payingTransaction(
          order ?? (await client.retrieveOrder(orderId, options)),
          'AUTHORIZATION',
        );
        if (!target) return { result: 'failed', message: 'MPGS has no authorization to void on this order.' };
        done = await client.void(orderId, transactionId, target.transaction.id, options);
      } else {
        const digits = await this.digitsOf(input.currencyCode);
        const args = [orderId, transactionId, input.amount, input.currencyCode, digits, options] as const;
        done = input.operation === 'capture' ? await client.capture(...args) : await client.refund(...args);
      }
      return this.operationOutcome(input, done);
    } catch (error) {
      return this.operationFailure(input, transactionId, error);
    }
  }

  /** What MPGS's record of our operation's transaction says. */
  private operationOutcome(input: FollowUpInput, done: MpgsTransaction): FollowUpOutcome {
    if (done.result === 'SUCCESS') {
      if (
        input.operation !== 'void' &&
        !sameMoney(done.transaction.amount, done.transaction.currency ?? done.order?.currency, input)
      ) {
        this.logger.error(
          {
            operation: input.operation,
            referenceNumber: input.referenceNumber,
            transactionId: done.transaction.id,
            asked: `${input.amount} ${input.currencyCode}`,
            answered: `${done.transaction.amount ?? '?'} ${done.transaction.currency ?? '?'}`,
          },
          'MPGS answered an operation for another amount or currency: not taken as done',
        );
        return { result: 'unknown' };
      }
      return { result: 'success' };
    }
    const code = done.response?.gatewayCode ?? done.result;
    if (done.result === 'FAILURE')
      return { result: 'failed', message: `MPGS refused the ${input.operation}: ${code}.` };
    return { result: 'unknown' }; // PENDING, UNKNOWN: the gateway has not decided yet
  }

  /**
   * An operation call that failed: MPGS refusing our credentials or asking us to slow down is a
   * {@link ProviderCallFailed} (nothing was done); a refusal of the request is checked against the
   * order first (it may be the refusal of a transaction id MPGS already has); anything else (no
   * answer, SERVER_FAILED) is `unknown`, and the operation is asked about again.
   */
  private async operationFailure(
    input: FollowUpInput,
    transactionId: string,
    error: unknown,
  ): Promise<FollowUpOutcome> {
    this.logger.warn(
      {
        operation: input.operation,
        orderId: input.referenceNumber,
        transactionId,
        failure: error instanceof Error ? error.name : 'unknown',
        cause: error instanceof MpgsApiError ? error.errorCause : undefined,
      },
      'MPGS did not carry out an operation',
    );
    if (!(error instanceof MpgsApiError)) {
      if (error instanceof ProviderCallFailed) throw error;
      return { result: 'unknown' };
    }
    if (error.status === 401 || error.status === 403 || error.status === 429 || error.retryable)
      throw providerFailure(error);
    if (error.status >= 500) return { result: 'unknown' };
    let order: MpgsOrder;
    try {
      order = await this.clientFor(input.settings).retrieveOrder(input.referenceNumber, callOptions(input));
    } catch {
      return { result: 'unknown' };
    }
    const mine = transactionOf(order, transactionId);
    if (mine) return this.operationOutcome(input, mine);
    return {
      result: 'failed',
      message: `MPGS refused the ${input.operation}: ${error.explanation ?? error.errorCause}`,
    };
  }

  /**
   * RETRIEVE ORDER by the attempt's reference; null when MPGS has no order of it (nothing was paid
   * or tried on it). Other failures are the provider's ({@link ProviderCallFailed}).
   */
  private async orderOf(input: InquiryInput): Promise<MpgsOrder | null> {
    try {
      return await this.clientFor(input.settings).retrieveOrder(input.referenceNumber, callOptions(input));
    } catch (error) {
      if (error instanceof MpgsApiError && error.status === 404) return null;
      throw providerFailure(error);
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
      api_version:
        typeof settings.api_version === 'string' || typeof settings.api_version === 'number'
          ? settings.api_version
          : undefined,
      notification_secret: text('notification_secret'),
      merchant_name: text('merchant_name'),
      timeout_ms: typeof settings.timeout_ms === 'number' ? settings.timeout_ms : undefined,
    };
    return new MpgsClient(input, { logger: this.callLogger });
  }
}

/** A call's limits: the request's shared deadline, or the background limit (contract §17, §20). */
function callOptions(input: DriverCall & { background?: boolean }): MpgsCallOptions {
  return {
    ...(input.background ? { background: true } : {}),
    ...(input.deadline !== undefined ? { deadline: input.deadline } : {}),
  };
}

/**
 * An MPGS failure as the pay path takes it (contract §20.1: the provider's status never becomes
 * ours): an error answer with its status, cause and explanation, retryable when MPGS says it did not
 * process it (SERVER_BUSY), asks us to slow down (429) or failed (5xx); no answer, retryable.
 */
export function providerFailure(error: unknown): unknown {
  if (error instanceof MpgsApiError) {
    return new ProviderCallFailed(MPGS_PG, error.message, {
      status: error.status,
      code: error.errorCause,
      retryable: error.retryable || error.status === 429 || error.status >= 500,
    });
  }
  if (error instanceof ProviderTransportError) {
    return new ProviderCallFailed(MPGS_PG, error.message, {
      status: null,
      code: error.kind,
      retryable: true,
    });
  }
  return error;
}

/** Our agreement (contract §15) as MPGS's `agreement` field; null without one. */
function agreementOf(agreement: ChargeAgreement | null | undefined): MpgsAgreement | null {
  if (!agreement?.id) return null;
  return { id: agreement.id.slice(0, 100), type: AGREEMENT_TYPES[agreement.type] ?? 'UNSCHEDULED' };
}

/** Whether MPGS's amount and currency are what was asked (amounts compared as decimals). */
function sameMoney(
  amount: string | number | undefined,
  currency: string | undefined,
  asked: { amount: string; currencyCode: string },
): boolean {
  if (amount === undefined || currency === undefined) return false;
  return currency === asked.currencyCode && new Money(String(amount)).eq(asked.amount);
}

/** The order's transaction with our id, if MPGS has it. */
function transactionOf(order: MpgsOrder, transactionId: string): MpgsTransaction | null {
  return (order.transaction ?? []).find((t) => t.transaction?.id === transactionId) ?? null;
}

/**
 * What an order says of the attempt (contract §20.1), the order being MPGS's own record
 * (RETRIEVE ORDER; null when MPGS has none):
 * - a successful PAYMENT or AUTHORIZATION → paid or authorized, whatever followed it (captures,
 *   refunds, a void), with the order's amount and currency (the pay path never settles another
 *   amount);
 * - a payment MPGS has not decided (`UNKNOWN`, `PENDING`) → throws: not known yet, never a guess;
 * - declined payments only → declined with the last one's `gatewayCode`; while the checkout session
 *   may still take a payment (the payer stays on the page to try again after a decline, "Customize
 *   Redirect and Retry Behavior") the decline carries `payerMayRetry`, final once it cannot;
 * - no payment at all (no order, or only AUTHENTICATION transactions: 3-D Secure started and
 *   abandoned, `order.status` AUTHENTICATION_INITIATED / AUTHENTICATION_UNSUCCESSFUL) → `'open'`
 *   while the session may still pay, null once it cannot (nothing paid, nothing can be).
 */
export function orderAnswer(
  order: MpgsOrder | null,
  provider: ProviderData | null | undefined,
  referenceNumber: string,
  now: number = Date.now(),
): InquiryAnswer {
  const open = sessionMayPay(provider, now);
  if (!order) return open ? 'open' : null;
  const paid = payingTransaction(order);
  if (paid) {
    return {
      result: 'success',
      responseCode: (paid.response?.gatewayCode ?? order.status).slice(0, 32),
      amount: String(order.amount),
      currencyCode: order.currency,
      provider: { transaction_id: paid.transaction.id },
    };
  }
  const payments = (order.transaction ?? []).filter((t) => PAYING_TYPES.has(t.transaction?.type ?? ''));
  const undecided = payments.find((t) => t.result !== 'FAILURE');
  if (undecided) throw new MpgsPaymentUndecided(referenceNumber, undecided.result);
  const tried = payments.at(-1);
  if (!tried) return open ? 'open' : null;
  return {
    result: 'declined',
    responseCode: (tried.response?.gatewayCode ?? order.status).slice(0, 32),
    amount: String(order.amount),
    currencyCode: order.currency,
    provider: { transaction_id: tried.transaction.id },
    ...(open ? { payerMayRetry: true } : {}),
  };
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
 * Whether the attempt's checkout session may still take a payment: it has one (a saved-card charge
 * has none) and its `payable_until` (or, for sessions started before it was kept, `started_at` +
 * {@link SESSION_PAYABLE_MS}) has not passed. A session whose age cannot be read may still pay.
 */
export function sessionMayPay(provider: ProviderData | null | undefined, now: number = Date.now()): boolean {
  if (!provider?.session_id) return false;
  const until = Date.parse(provider.payable_until ?? '');
  if (!Number.isNaN(until)) return now < until;
  const started = Date.parse(provider.started_at ?? '');
  return Number.isNaN(started) || now - started < SESSION_PAYABLE_MS;
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
