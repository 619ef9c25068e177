import { createHash, timingSafeEqual } from 'node:crypto';
import { parse as parseLosslessJson } from 'lossless-json';
import { callTimeoutMs } from '../../adapters/gateway-adapter';
import { ProviderTransportError } from '../provider-http';
import { formatMpgsAmount } from './mpgs-amount';
import { MpgsApiError } from './mpgs-errors';
import { MpgsHttpSend, sendMpgsHttp } from './mpgs-http';
import { verifyMpgsNotification } from './mpgs-notification';
import {
  DEFAULT_BACKGROUND_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  MpgsSettings,
  MpgsSettingsInput,
  resolveMpgsSettings,
} from './mpgs-settings';
import {
  MpgsAgreement,
  MpgsCheckoutSession,
  MpgsInitiateCheckoutInput,
  MpgsOrder,
  MpgsSessionAnswer,
  MpgsToken,
  MpgsTransaction,
} from './mpgs-types';

/** What the client logs: one line per call, built from ids and outcomes only (no bodies, no secrets). */
export interface MpgsCallLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface MpgsClientOptions {
  /** Replaces the HTTP layer (tests). */
  send?: MpgsHttpSend;
  /** Default 5000 (contract §20 "Provider calls"). */
  connectTimeoutMs?: number;
  /** The answer limit of background calls; default 20000 (contract §20). */
  backgroundTimeoutMs?: number;
  logger?: MpgsCallLogger;
}

export interface MpgsCallOptions {
  /**
   * A call nobody waits on (the reconciler, inquiry of old attempts): bounded by the background
   * limit instead of the gateway's `timeout_ms`.
   */
  background?: boolean;
  /**
   * The request's shared deadline (epoch ms, contract §17): the call, its retry included, ends by
   * then even when the gateway's limit would allow more ({@link callTimeoutMs}).
   */
  deadline?: number;
}

/**
 * When a call may be sent again after a failure:
 * - `unsent`: only when the request provably never left (no connection was made);
 * - `unprocessed`: also after SERVER_BUSY, which MPGS documents as "not processed, try again later"
 *   (https://developer.mastercard.com/mastercard-gateway/documentation/testing/trans-error/) —
 *   never after a connection that broke once the request was sent: MPGS may have carried it out,
 *   and a transaction operation sent again with the same transaction id is not documented to
 *   answer the first outcome (see {@link MpgsClient.capture});
 * - `read`: also after a broken connection (a GET changes nothing).
 */
type RetryPolicy = 'unsent' | 'unprocessed' | 'read';

/** At most this many sends of one call, all within the call's one time limit. */
const MAX_SENDS = 2;
const RETRY_PAUSE_MS = 200;

/** The arguments of CAPTURE and REFUND: which order, our id for the new transaction, how much. */
type AmountOperationArgs = [
  orderId: string,
  transactionId: string,
  amount: string,
  currency: string,
  digits: number,
  options?: MpgsCallOptions,
];

/**
 * A thin client of the Mastercard Gateway (MPGS) REST API for Hosted Checkout (contract §20):
 * INITIATE CHECKOUT, RETRIEVE ORDER / TRANSACTION, CAPTURE, VOID, REFUND, PAY with a token, and
 * tokens. Authentication is HTTP Basic with `merchant.<merchant id>` and the API password
 * (https://developer.mastercard.com/mastercard-gateway/documentation/getting-started/make-server-api-req/).
 *
 * Every call is bounded: 5 s to connect, and `timeout_ms` (or 20 s in the background) for the
 * whole call, retries included. Failures throw {@link MpgsApiError} (the gateway answered with an
 * error) or {@link ProviderTransportError} (no answer); neither ever carries the API password.
 */
export class MpgsClient {
  readonly settings: MpgsSettings;
  private readonly send: MpgsHttpSend;
  private readonly connectTimeoutMs: number;
  private readonly backgroundTimeoutMs: number;
  private readonly logger: MpgsCallLogger | undefined;
  private readonly authorization: string;

  constructor(settings: MpgsSettingsInput | MpgsSettings, options: MpgsClientOptions = {}) {
    this.settings = 'merchantId' in settings ? settings : resolveMpgsSettings(settings);
    this.send = options.send ?? sendMpgsHttp;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.backgroundTimeoutMs = options.backgroundTimeoutMs ?? DEFAULT_BACKGROUND_TIMEOUT_MS;
    this.logger = options.logger;
    const credentials = `merchant.${this.settings.merchantId}:${this.settings.apiPassword}`;
    this.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  }

  /** The provider's Hosted Checkout script (contract §20): `{api_base_url}/static/checkout/checkout.min.js`. */
  get checkoutScriptUrl(): string {
    return `${this.settings.apiBaseUrl}/static/checkout/checkout.min.js`;
  }

  /**
   * INITIATE CHECKOUT: creates the checkout session the Hosted Payment Page runs on
   * (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/establishing-a-session/).
   * A POST creates a new session each time, so it is sent again only when it never left.
   */
  async initiateCheckout(
    input: MpgsInitiateCheckoutInput,
    options: MpgsCallOptions = {},
  ): Promise<MpgsCheckoutSession> {
    const body = {
      apiOperation: 'INITIATE_CHECKOUT',
      interaction: {
        operation: input.operation,
        returnUrl: input.returnUrl,
        cancelUrl: input.cancelUrl,
        ...(this.settings.merchantName ? { merchant: { name: this.settings.merchantName } } : {}),
      },
      order: {
        id: input.orderId,
        amount: formatMpgsAmount(input.amount, input.digits),
        currency: input.currency,
        ...(input.description ? { description: input.description } : {}),
        notificationUrl: input.notificationUrl,
      },
      // Credential on file: the payment on the page is the first of a card the payer agrees to
      // store (https://developer.mastercard.com/mastercard-gateway/documentation/security-and-fraud/cred-file-transc/,
      // https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-gateway-features/cof-hosted-checkout/).
      ...(input.storedOnFile
        ? { sourceOfFunds: { provided: { card: { storedOnFile: input.storedOnFile } } } }
        : {}),
      ...(input.agreement ? { agreement: input.agreement } : {}),
    };
    const answer = await this.call<MpgsSessionAnswer>('INITIATE_CHECKOUT', 'POST', ['session'], body, {
      ...options,
      retry: 'unsent',
      ids: { orderId: input.orderId },
    });
    if (!answer.session?.id || !answer.successIndicator) {
      throw new MpgsApiError(
        'INITIATE_CHECKOUT',
        200,
        'SERVER_FAILED',
        'no session id or successIndicator',
        null,
        null,
      );
    }
    return {
      sessionId: answer.session.id,
      sessionVersion: answer.session.version ?? null,
      successIndicator: answer.successIndicator,
    };
  }

  /**
   * RETRIEVE ORDER: the order with its totals and every transaction. This, not the browser's
   * `resultIndicator`, decides a payment's outcome (contract §20 "The customer's return";
   * https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/interpreting-the-response/).
   * A GET changes nothing, so it may be sent again.
   */
  retrieveOrder(orderId: string, options: MpgsCallOptions = {}): Promise<MpgsOrder> {
    return this.call<MpgsOrder>('RETRIEVE_ORDER', 'GET', ['order', orderId], undefined, {
      ...options,
      retry: 'read',
      ids: { orderId },
    });
  }

  /** RETRIEVE TRANSACTION: one transaction of an order (also the body of a notification). */
  retrieveTransaction(
    orderId: string,
    transactionId: string,
    options: MpgsCallOptions = {},
  ): Promise<MpgsTransaction> {
    return this.call<MpgsTransaction>(
      'RETRIEVE_TRANSACTION',
      'GET',
      ['order', orderId, 'transaction', transactionId],
      undefined,
      { ...options, retry: 'read', ids: { orderId, transactionId } },
    );
  }

  /**
   * CAPTURE (all or part of an authorization), as a transaction operation on the order
   * (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/subsequent-operations/).
   *
   * Transaction operations are `PUT .../order/{orderId}/transaction/{transactionId}` with an id
   * Checkout chooses: MPGS identifies a transaction by its order id and transaction id
   * (https://developer.mastercard.com/mastercard-gateway/documentation/concepts/order-trans-concepts/identifiers/),
   * so the id names the one transaction the request creates, and RETRIEVE ORDER / RETRIEVE
   * TRANSACTION tell later whether it exists. MPGS does not document what a second request with an
   * id already used answers (it may refuse it): this client sends one again only when the first
   * provably never left or MPGS answered SERVER_BUSY ("not processed"), and a caller that lost an
   * answer retrieves the order instead of sending it again. Give the same transaction id every time.
   */
  capture(...args: AmountOperationArgs): Promise<MpgsTransaction> {
    return this.amountOperation('CAPTURE', ...args);
  }

  /** REFUND (all or part of what was captured): a transaction operation, see {@link capture}. */
  refund(...args: AmountOperationArgs): Promise<MpgsTransaction> {
    return this.amountOperation('REFUND', ...args);
  }

  /** A CAPTURE or REFUND of `amount` (decimal text with the currency's `digits`), in MPGS's format. */
  private amountOperation(
    operation: 'CAPTURE' | 'REFUND',
    ...[orderId, transactionId, amount, currency, digits, options = {}]: AmountOperationArgs
  ): Promise<MpgsTransaction> {
    const body = {
      apiOperation: operation,
      transaction: { amount: formatMpgsAmount(amount, digits), currency },
    };
    return this.transactionCall(operation, orderId, transactionId, body, options);
  }

  /**
   * VOID of an earlier transaction of the order (an authorization not captured: VOID_AUTHORIZATION),
   * named by `targetTransactionId`: a transaction operation, see {@link capture}.
   */
  void(
    orderId: string,
    transactionId: string,
    targetTransactionId: string,
    options: MpgsCallOptions = {},
  ): Promise<MpgsTransaction> {
    const body = { apiOperation: 'VOID', transaction: { targetTransactionId } };
    return this.transactionCall('VOID', orderId, transactionId, body, options);
  }

  /**
   * PAY (or AUTHORIZE) with a saved card's gateway token (contract §15, §20 "Saved cards"):
   * `sourceOfFunds.token` with `storedOnFile: STORED`, and who starts it — the merchant
   * (`transaction.source: MERCHANT`, auto-debit, with the `agreement` the card was saved under) or
   * the cardholder on our page (`INTERNET`, with the security code they typed) ("Credential on
   * File Transactions": a payment of a stored card carries STORED; a merchant-initiated one of a
   * series carries the agreement's id and type;
   * https://developer.mastercard.com/mastercard-gateway/documentation/security-and-fraud/cred-file-transc/,
   * https://developer.mastercard.com/mastercard-gateway/documentation/tutorials-and-guides/guides/multiple-payment-sources/).
   * A transaction operation, see {@link capture}.
   */
  payWithToken(
    input: {
      orderId: string;
      transactionId: string;
      amount: string;
      currency: string;
      digits: number;
      token: string;
      operation?: 'PAY' | 'AUTHORIZE';
      /** The agreement a merchant-initiated payment is made under (never sent for the cardholder's). */
      agreement?: MpgsAgreement;
      description?: string;
      notificationUrl?: string;
      /** The cardholder pays on our page (a CIT), with the security code when they typed one. */
      cardholder?: { securityCode?: string };
    },
    options: MpgsCallOptions = {},
  ): Promise<MpgsTransaction> {
    const operation = input.operation ?? 'PAY';
    const body = {
      apiOperation: operation,
      order: {
        amount: formatMpgsAmount(input.amount, input.digits),
        currency: input.currency,
        ...(input.description ? { description: input.description } : {}),
        ...(input.notificationUrl ? { notificationUrl: input.notificationUrl } : {}),
      },
      sourceOfFunds: {
        type: 'CARD',
        token: input.token,
        provided: {
          card: {
            storedOnFile: 'STORED',
            ...(input.cardholder?.securityCode ? { securityCode: input.cardholder.securityCode } : {}),
          },
        },
      },
      transaction: { source: input.cardholder ? 'INTERNET' : 'MERCHANT' },
      ...(input.agreement && !input.cardholder ? { agreement: input.agreement } : {}),
    };
    return this.transactionCall(operation, input.orderId, input.transactionId, body, options);
  }

  /**
   * CREATE OR UPDATE TOKEN with a system-generated token, from the card the payer entered in a
   * checkout session (`session.id`), to charge it later with {@link payWithToken}
   * (https://ap-gateway.mastercard.com/api/documentation/apiDocumentation/rest-json/version/56/operation/Tokenization:%20%20Create%20or%20Update%20Token%20(with%20system-generated%20token).html).
   * A POST: sent again only when it never left.
   */
  tokenizeSession(sessionId: string, options: MpgsCallOptions = {}): Promise<MpgsToken> {
    const body = { session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    return this.call<MpgsToken>('CREATE_TOKEN', 'POST', ['token'], body, {
      ...options,
      retry: 'unsent',
      ids: {},
    });
  }

  /** RETRIEVE TOKEN: the masked card a token stands for. */
  retrieveToken(token: string, options: MpgsCallOptions = {}): Promise<MpgsToken> {
    return this.call<MpgsToken>('RETRIEVE_TOKEN', 'GET', ['token', token], undefined, {
      ...options,
      retry: 'read',
      ids: {},
    });
  }

  /** DELETE TOKEN: forgets a saved card at the gateway. Deleting twice deletes once. */
  async deleteToken(token: string, options: MpgsCallOptions = {}): Promise<void> {
    await this.call<unknown>('DELETE_TOKEN', 'DELETE', ['token', token], undefined, {
      ...options,
      retry: 'unprocessed',
      ids: {},
    });
  }

  /** Whether a notification's `X-Notification-Secret` matches the gateway's `notification_secret`. */
  verifyNotification(headers: Record<string, string | string[] | undefined>): boolean {
    return verifyMpgsNotification(headers, this.settings.notificationSecret);
  }

  /**
   * Whether the `resultIndicator` the browser brought back equals the session's `successIndicator`
   * (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/interpreting-the-response/).
   * A match says the payment likely succeeded and a mismatch proves nothing: the order is
   * retrieved either way (contract §20). Compared in constant time.
   */
  static resultIndicatorMatches(
    resultIndicator: string | null | undefined,
    successIndicator: string,
  ): boolean {
    if (!resultIndicator) return false;
    const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
    return timingSafeEqual(digest(resultIndicator), digest(successIndicator));
  }

  private transactionCall(
    operation: string,
    orderId: string,
    transactionId: string,
    body: object,
    options: MpgsCallOptions,
  ): Promise<MpgsTransaction> {
    return this.call<MpgsTransaction>(
      operation,
      'PUT',
      ['order', orderId, 'transaction', transactionId],
      body,
      {
        ...options,
        retry: 'unprocessed',
        ids: { orderId, transactionId },
      },
    );
  }

  private url(segments: string[]): string {
    const path = [
      'api',
      'rest',
      'version',
      String(this.settings.apiVersion),
      'merchant',
      this.settings.merchantId,
    ]
      .concat(segments)
      .map((segment) => encodeURIComponent(segment))
      .join('/');
    return `${this.settings.apiBaseUrl}/${path}`;
  }

  /** Sends one call within its time limit, sending it again only as `retry` allows. */
  private async call<T>(
    operation: string,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    segments: string[],
    body: object | undefined,
    options: MpgsCallOptions & { retry: RetryPolicy; ids: { orderId?: string; transactionId?: string } },
  ): Promise<T> {
    const started = Date.now();
    const limit = options.background ? this.backgroundTimeoutMs : this.settings.timeoutMs;
    const deadline = started + callTimeoutMs(limit, options.deadline, started);
    const text = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      const remaining = deadline - Date.now();
      try {
        const answer = await this.send(
          {
            method,
            url: this.url(segments),
            headers: { Authorization: this.authorization },
            body: text,
            connectTimeoutMs: Math.min(this.connectTimeoutMs, remaining),
            answerTimeoutMs: remaining,
          },
          operation,
        );
        const parsed = parseAnswer(answer.text);
        if (answer.status < 200 || answer.status > 299 || parsed?.result === 'ERROR') {
          throw apiError(operation, answer.status, parsed);
        }
        this.log('info', operation, options.ids, attempt, started, {
          status: answer.status,
          result: parsed?.result,
          gatewayCode: (parsed?.response as { gatewayCode?: string } | undefined)?.gatewayCode,
        });
        return parsed as T;
      } catch (error) {
        const again =
          attempt < MAX_SENDS && retryAllowed(error, options.retry) && deadline - Date.now() > RETRY_PAUSE_MS;
        this.log('warn', operation, options.ids, attempt, started, describeFailure(error), again);
        if (!again) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
      }
    }
  }

  private log(
    level: 'info' | 'warn',
    operation: string,
    ids: { orderId?: string; transactionId?: string },
    attempt: number,
    started: number,
    outcome: Record<string, unknown>,
    retrying?: boolean,
  ): void {
    this.logger?.[level](
      {
        provider: 'mpgs',
        operation,
        ...ids,
        attempt,
        ms: Date.now() - started,
        ...outcome,
        ...(retrying === undefined ? {} : { retrying }),
      },
      `MPGS ${operation}`,
    );
  }
}

/** Parses an answer keeping every number as its decimal text (amounts must not pass through floats). */
function parseAnswer(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return null;
  try {
    const value = parseLosslessJson(text, null, (digits: string) => digits);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function apiError(operation: string, status: number, parsed: Record<string, unknown> | null): MpgsApiError {
  const error = (parsed?.error ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const cause = text(error.cause) ?? (status >= 500 ? 'SERVER_FAILED' : 'INVALID_REQUEST');
  return new MpgsApiError(
    operation,
    status,
    cause,
    text(error.explanation),
    text(error.field),
    text(error.validationType),
  );
}

function retryAllowed(error: unknown, policy: RetryPolicy): boolean {
  if (error instanceof ProviderTransportError) {
    if (!error.sent) return true;
    return policy === 'read' && error.kind === 'network';
  }
  return error instanceof MpgsApiError && error.retryable && policy !== 'unsent';
}

function describeFailure(error: unknown): Record<string, unknown> {
  if (error instanceof MpgsApiError) {
    return { status: error.status, cause: error.errorCause, field: error.field ?? undefined };
  }
  if (error instanceof ProviderTransportError) return { failure: error.kind, sent: error.sent };
  return { failure: error instanceof Error ? error.name : 'unknown' };
}
