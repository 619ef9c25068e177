import { Logger, type LoggerService } from '@nestjs/common';
import { ProviderTransportError } from '../provider-http';
import { decryptTrandata, encryptTrandata, KnetDecryptError, resourceKeyBytes } from './knet-crypto';
import { KnetHttpLimits, postText } from './knet-http';
import {
  checkMerchantUrl,
  checkTrackId,
  checkUdfs,
  joinPairs,
  KNET_ACTION,
  knetAmount,
  KnetLanguage,
  KnetUdfs,
  KWD_NUMERIC,
  parseFlatXml,
  parsePairs,
  sameAmount,
  tranPipeXml,
  UDF_NAMES,
} from './knet-messages';

/**
 * KNET's RAW merchant integration (no plug-in), as documented in KNET's *Merchant Integration
 * Manual* K-064 v1.4 (23 Aug 2023) and KNET's PHP RAW sample kit (see docs/gateways/knet.md):
 *
 * 1. Payment initialization (§3.5.1, §3.5.4): the request fields are encrypted into `trandata`
 *    and the customer is sent to `PaymentHTTP.htm?param=paymentInit&trandata=…&tranportalId=…`.
 * 2. Response notification (§3.5.2, §5): KNET POSTs (URL-encoded) the encrypted result to the
 *    `responseURL`; the merchant answers the single line `REDIRECT=<receipt URL>`, and KNET then
 *    sends the customer there. A missing or wrong answer makes KNET reverse the payment (§9.2.1).
 * 3. Inquiry (§3.5.3, action 8) and refund (§3.7.2, action 2): XML POSTed server to server to
 *    `tranPipe.htm?param=tranInit`.
 *
 * The client holds no state. It never logs nor puts in an error message the tranportal password,
 * the resource key, `trandata` or the payment URL (which carries `trandata`).
 */

/** The terminal's credentials and KNET's two URLs (contract §20's `knet` settings). */
export interface KnetTerminal {
  tranportalId: string;
  tranportalPassword: string;
  /** The terminal resource key: 16 characters, the AES key. */
  resourceKey: string;
  /** `…/kpg/PaymentHTTP.htm`: where the customer is sent. */
  paymentUrl: string;
  /** `…/kpg/tranPipe.htm`: inquiries and refunds. */
  inquiryUrl: string;
}

/** KNET's hosts (K-064 §3.1, §3.7.2, §8): the test one and production. */
export const KNET_TEST_URLS = {
  paymentUrl: 'https://www.kpaytest.com.kw/kpg/PaymentHTTP.htm',
  inquiryUrl: 'https://www.kpaytest.com.kw/kpg/tranPipe.htm',
} as const;
export const KNET_PRODUCTION_URLS = {
  paymentUrl: 'https://www.kpay.com.kw/kpg/PaymentHTTP.htm',
  inquiryUrl: 'https://www.kpay.com.kw/kpg/tranPipe.htm',
} as const;

/** The defaults of `payment_url` and `inquiry_url` (contract §20): test hosts when sandboxed. */
export function knetDefaultUrls(isSandbox: boolean): { paymentUrl: string; inquiryUrl: string } {
  return isSandbox ? { ...KNET_TEST_URLS } : { ...KNET_PRODUCTION_URLS };
}

export interface KnetClientOptions {
  /** Limit for a whole call (the gateway's `timeout_ms`); default 8000. */
  timeoutMs?: number;
  /** Limit until connected; default 5000. */
  connectTimeoutMs?: number;
  logger?: Pick<LoggerService, 'log' | 'warn'>;
}

/** Per call: background calls (reconciler) may allow up to 20 s (contract §20). */
export interface KnetCallOptions {
  timeoutMs?: number;
}

export interface KnetPaymentInput {
  /**
   * Our reference of the attempt: alphanumeric, unique per initialization, at most 19 characters
   * (KNET's `transid` limit, which inquiry and refund by track id need; `TRACK_ID_MAX`).
   */
  trackId: string;
  /** KWD, at most three decimals. */
  amount: string;
  /** Where KNET posts the result (our notify URL): https, no query string. */
  responseUrl: string;
  /** Where KNET sends the customer when it cannot process the payment. */
  errorUrl: string;
  language?: KnetLanguage;
  udfs?: KnetUdfs;
}

export interface KnetPaymentRedirect {
  /** Send the customer here (a 303). Carries `trandata`: never log it. */
  url: string;
  trackId: string;
  /** The amount as sent, three decimals. */
  amount: string;
}

/** What KNET says of one transaction, in a result post or an inquiry/refund answer (K-064 §3.5.5, §5). */
export interface KnetTransactionDetails {
  /** `CAPTURED`, `NOT CAPTURED`, `CANCELED`, `HOST TIMEOUT`, … */
  result: string;
  paymentId: string;
  trackId: string;
  amount: string;
  tranId: string;
  ref: string;
  auth: string;
  /** `MMDD`. */
  postDate: string;
  authRespCode: string;
  udfs: KnetUdfs;
}

/** A result KNET posted, decrypted (K-064 §3.5.5, §5). */
export interface KnetResultMessage extends KnetTransactionDetails {
  avr: string;
  /** Every decrypted field, to store with the attempt (K-064 §5: keep the plain-text response). */
  fields: Record<string, string>;
  /** The `trandata` hex as posted, which decrypted to `fields` (K-064 §5: keep the encrypted one too). */
  trandata: string;
}

/** What a post to the response URL holds. */
export type KnetPostContent =
  | { kind: 'result'; message: KnetResultMessage }
  /**
   * KNET's plain-text error fields (K-064 §3.6.1's sample reads `Error`, `ErrorText`, … when
   * `ErrorText` is present). Nothing in them is encrypted, so they prove nothing: settle by inquiry.
   */
  | { kind: 'error'; error: string; errorText: string; claimedTrackId: string; claimedPaymentId: string };

/** The body of a post, as received: the raw text, or already-parsed form fields. */
export type KnetPost = string | URLSearchParams | Record<string, string | string[] | undefined>;

/** What a verified result means for the attempt. */
export type KnetVerdict =
  | { outcome: 'captured'; message: KnetResultMessage }
  | { outcome: 'declined'; message: KnetResultMessage }
  /** The customer pressed Cancel on KNET's page: the transaction stays payable. */
  | { outcome: 'canceled'; message: KnetResultMessage }
  /** `HOST TIMEOUT` or a result KNET does not document: ask by inquiry. */
  | { outcome: 'unknown'; message: KnetResultMessage }
  /** Never pays (contract §20): log it and settle by inquiry. */
  | { outcome: 'amount_mismatch'; message: KnetResultMessage; expectedAmount: string };

export interface KnetExpectation {
  trackId: string;
  amount: string;
}

export type KnetInquiryAnswer =
  | { status: 'captured'; details: KnetTransactionDetails }
  /**
   * `INITIATED` (or `FAILURE(INITIATED)`): KNET opened the page and nothing was submitted yet. Not
   * final: the page may still take the payment until its time limit (docs/gateways/knet.md).
   */
  | { status: 'initiated'; details: KnetTransactionDetails }
  /** Any other result: `details.result` says which (`knetResultState` reads it). */
  | { status: 'not_captured'; details: KnetTransactionDetails }
  /** KNET has no transaction for the track: nothing was charged (yet: see docs/gateways/knet.md). */
  | { status: 'not_found'; errorCode: string };

export type KnetRefundAnswer =
  | { status: 'refunded'; details: KnetTransactionDetails }
  | { status: 'refused'; result: string; errorCode?: string; errorText?: string };

/**
 * A result post that cannot be trusted: not decryptable, incomplete, or for another track. The
 * message is the same for every reason (no decryption oracle); `reason` is for logs only.
 */
export class KnetUnverifiedError extends Error {
  constructor(readonly reason: string) {
    super('The KNET result could not be verified');
    this.name = 'KnetUnverifiedError';
  }
}

/**
 * KNET answered, but with an error (`!ERROR!-<code>-…`, `errorCode`), an HTTP status other than 200
 * (`httpStatus`), or something we cannot read.
 */
export class KnetAnswerError extends Error {
  constructor(
    message: string,
    readonly errorCode?: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'KnetAnswerError';
  }
}

export { KnetRequestError } from './knet-messages';

/** `!ERROR!-IPAY0100263-Transaction not found.` (tranPipe's error answers). */
const ERROR_RESULT = /^!ERROR!-([A-Z0-9]+)-(.*)$/s;
/** KNET's "no such transaction" (K-064 §10 IPAY0100263 "Transaction details not available"). */
const NOT_FOUND_CODE = 'IPAY0100263';
/**
 * The inquiry's word for a page opened and not submitted (the public kits: asciisd/knet
 * `PaymentResponseHandler::determineStatus` maps it to its pending `PaymentStatus::INITIATED`).
 */
const INITIATED = 'INITIATED';
const DEFAULT_TIMEOUT_MS = 8000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const HEX_ONLY = /^\s*[0-9a-fA-F]+\s*$/;

export class KnetClient {
  private readonly logger: Pick<LoggerService, 'log' | 'warn'>;
  private readonly limits: KnetHttpLimits;

  constructor(
    private readonly terminal: KnetTerminal,
    options: KnetClientOptions = {},
  ) {
    resourceKeyBytes(terminal.resourceKey); // refuses a bad key now, not at the first payment
    this.limits = {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    };
    this.logger = options.logger ?? new Logger('KnetClient');
  }

  /** The customer's way to KNET's payment page (K-064 §3.5.4; KNET's `SendPerformREQuest.php`). */
  paymentRedirect(input: KnetPaymentInput): KnetPaymentRedirect {
    const trackId = checkTrackId(input.trackId);
    const amount = knetAmount(input.amount);
    const responseUrl = checkMerchantUrl('responseURL', input.responseUrl);
    const errorUrl = checkMerchantUrl('errorURL', input.errorUrl);
    const udfs = checkUdfs(input.udfs ?? {});
    const plain = joinPairs([
      ['id', this.terminal.tranportalId],
      ['password', this.terminal.tranportalPassword],
      ['action', KNET_ACTION.purchase],
      ['langid', input.language ?? 'EN'],
      ['currencycode', KWD_NUMERIC],
      ['amt', amount],
      ['responseURL', responseUrl],
      ['errorURL', errorUrl],
      ['trackid', trackId],
      ...UDF_NAMES.map((name): [string, string] => [name, udfs[name] ?? '']),
    ]);
    const url = new URL(this.terminal.paymentUrl);
    url.searchParams.set('param', 'paymentInit');
    url.searchParams.set('trandata', encryptTrandata(plain, this.terminal.resourceKey));
    url.searchParams.set('tranportalId', this.terminal.tranportalId);
    url.searchParams.set('responseURL', responseUrl);
    url.searchParams.set('errorURL', errorUrl);
    this.logger.log({ knet: 'paymentInit', trackId, amount }, 'KNET payment page requested');
    return { url: url.toString(), trackId, amount };
  }

  /**
   * Reads a post to the response URL (K-064 §5): decrypts `trandata` with the resource key. The
   * plain `paymentid`/`trackid` fields next to it are ignored; only the decrypted ones count.
   * A bare hex body (no `trandata=`) is read as `trandata` too: that is how KNET's own PHP kit reads
   * the post (srku14/KNET-Payment-Gateway-SDK `GetHandlerResponse.php` forwards
   * `file_get_contents('php://input')` as `trandata`; alnazer/knet-payment decrypts `php://input`
   * as it is in the flow KNET requires since September 2023; asciisd/knet
   * `KnetResponseService::decryptAndParse` takes a raw hex body as `trandata`).
   */
  openResult(post: KnetPost): KnetPostContent {
    const fields = postFields(post);
    const trandata = fields.trandata;
    if (!trandata) {
      if (fields.Error || fields.ErrorText) {
        return {
          kind: 'error',
          error: fields.Error ?? '',
          errorText: fields.ErrorText ?? '',
          claimedTrackId: fields.trackid ?? '',
          claimedPaymentId: fields.paymentid ?? '',
        };
      }
      throw new KnetUnverifiedError('no trandata and no error fields');
    }
    let plain: string;
    try {
      plain = decryptTrandata(trandata, this.terminal.resourceKey);
    } catch (error) {
      if (error instanceof KnetDecryptError) throw new KnetUnverifiedError('trandata does not decrypt');
      throw error;
    }
    const values = parsePairs(plain);
    if (!values.result || !values.trackid || !values.amt) {
      throw new KnetUnverifiedError('decrypted trandata lacks result, trackid or amt');
    }
    return { kind: 'result', message: { ...resultMessage(values), trandata: trandata.trim() } };
  }

  /**
   * Checks a decrypted result against what we sent (contract §20: "decrypt `trandata`, then
   * check the track id and the amount"). Another track → {@link KnetUnverifiedError}.
   */
  checkResult(message: KnetResultMessage, expected: KnetExpectation): KnetVerdict {
    if (message.trackId !== expected.trackId) throw new KnetUnverifiedError('trandata is for another track');
    if (!sameAmount(message.amount, expected.amount)) {
      this.logger.warn(
        { knet: 'result', trackId: message.trackId, amount: message.amount, expectedAmount: expected.amount },
        'KNET result amount differs from the attempt',
      );
      return { outcome: 'amount_mismatch', message, expectedAmount: expected.amount };
    }
    return { outcome: resultOutcome(message.result), message };
  }

  /** {@link openResult} then {@link checkResult}; an error post → {@link KnetUnverifiedError}. */
  verifyResult(post: KnetPost, expected: KnetExpectation): KnetVerdict {
    const content = this.openResult(post);
    if (content.kind === 'error') throw new KnetUnverifiedError(`error post ${content.error}`);
    return this.checkResult(content.message, expected);
  }

  /**
   * The answer KNET expects from the response URL: one line, `REDIRECT=<receipt URL>`, as
   * `text/plain`, no HTML, no redirect (K-064 §5, §9.2.1).
   */
  notificationReply(receiptUrl: string): string {
    const url = new URL(receiptUrl);
    if (!['https:', 'http:'].includes(url.protocol)) throw new Error('The receipt URL must be http(s)');
    return `REDIRECT=${url.toString()}`;
  }

  /** Asks KNET about a track (action 8, `udf5=TrackID`; K-064 §3.5.3's table). */
  async inquire(input: KnetExpectation, options: KnetCallOptions = {}): Promise<KnetInquiryAnswer> {
    const fields = await this.tranPipe('inquiry', KNET_ACTION.inquiry, input, options);
    const error = ERROR_RESULT.exec(fields.result ?? '');
    if (error) {
      if (error[1] === NOT_FOUND_CODE) return { status: 'not_found', errorCode: error[1] };
      throw new KnetAnswerError(`KNET refused the inquiry: ${error[1]} ${error[2].trim()}`, error[1]);
    }
    const details = this.matchingDetails(fields, input);
    const captured = details.result === 'SUCCESS' || details.result === 'CAPTURED'; // K-064 §3.5.5
    if (captured) return { status: 'captured', details };
    if (knetResultState(details.result) === INITIATED) return { status: 'initiated', details };
    return { status: 'not_captured', details };
  }

  /**
   * Refunds (part of) a captured payment (action 2; K-064 §3.7.2). Only `CAPTURED` is a success
   * (§3.7.3). Not idempotent: a call that fails without an answer must not be repeated blindly.
   */
  async refund(input: KnetExpectation, options: KnetCallOptions = {}): Promise<KnetRefundAnswer> {
    const fields = await this.tranPipe('refund', KNET_ACTION.refund, input, options);
    const result = fields.result ?? '';
    const error = ERROR_RESULT.exec(result);
    if (error) return { status: 'refused', result, errorCode: error[1], errorText: error[2].trim() };
    if (result !== 'CAPTURED') return { status: 'refused', result };
    return { status: 'refunded', details: transactionDetails(fields) };
  }

  private async tranPipe(
    call: 'inquiry' | 'refund',
    action: string,
    input: KnetExpectation,
    options: KnetCallOptions,
  ): Promise<Record<string, string>> {
    const trackId = checkTrackId(input.trackId);
    const amount = knetAmount(input.amount);
    const body = tranPipeXml([
      ['id', this.terminal.tranportalId],
      ['password', this.terminal.tranportalPassword],
      ['action', action],
      ['amt', amount],
      ['transid', trackId],
      ['trackid', trackId],
      ['udf5', 'TrackID'],
    ]);
    const url = new URL(this.terminal.inquiryUrl);
    url.searchParams.set('param', 'tranInit');
    const limits = { ...this.limits, timeoutMs: options.timeoutMs ?? this.limits.timeoutMs };
    const started = Date.now();
    try {
      const answer = await postText(call, url, body, 'application/xml', limits);
      const fields = answer.status === 200 ? parseFlatXml(answer.body) : {};
      this.logger.log(
        {
          knet: call,
          trackId,
          amount,
          httpStatus: answer.status,
          result: fields.result,
          ms: Date.now() - started,
        },
        `KNET ${call} answered`,
      );
      if (answer.status !== 200)
        throw new KnetAnswerError(
          `KNET answered the ${call} with HTTP ${answer.status}`,
          undefined,
          answer.status,
        );
      if (!fields.result) throw new KnetAnswerError(`KNET's ${call} answer has no result`);
      return fields;
    } catch (error) {
      if (error instanceof ProviderTransportError) {
        this.logger.warn(
          { knet: call, trackId, failure: error.kind, ms: Date.now() - started },
          error.message,
        );
      }
      throw error;
    }
  }

  /** The inquiry's details, which must be about the track and amount asked. */
  private matchingDetails(fields: Record<string, string>, input: KnetExpectation): KnetTransactionDetails {
    const details = transactionDetails(fields);
    if (
      (details.trackId && details.trackId !== input.trackId) ||
      (details.amount && !sameAmount(details.amount, input.amount))
    ) {
      throw new KnetAnswerError('KNET answered the inquiry about another track or amount');
    }
    return details;
  }
}

function postFields(post: KnetPost): Record<string, string | undefined> {
  if (typeof post === 'string') return HEX_ONLY.test(post) ? { trandata: post.trim() } : parsePairs(post);
  if (post instanceof URLSearchParams) return Object.fromEntries(post);
  return Object.fromEntries(
    Object.entries(post).map(([key, value]) => [key, Array.isArray(value) ? value[value.length - 1] : value]),
  );
}

function udfsOf(values: Record<string, string>): KnetUdfs {
  return Object.fromEntries(UDF_NAMES.map((name) => [name, values[name] ?? '']));
}

function resultMessage(values: Record<string, string>): Omit<KnetResultMessage, 'trandata'> {
  return {
    ...transactionDetails(values),
    result: values.result,
    paymentId: values.paymentid ?? '',
    trackId: values.trackid,
    amount: values.amt,
    avr: values.avr ?? '',
    // K-064 §3.5.5 names it authRespCode; its §5 sample writes authResponseCode.
    authRespCode: values.authRespCode ?? values.authResponseCode ?? '',
    fields: values,
  };
}

/** Where each detail stands among the fields KNET sends (first name present wins). */
const DETAIL_FIELDS: Record<Exclude<keyof KnetTransactionDetails, 'udfs'>, string[]> = {
  result: ['result'],
  paymentId: ['payid', 'paymentid'],
  trackId: ['trackid'],
  amount: ['amt'],
  tranId: ['tranid'],
  ref: ['ref'],
  auth: ['auth'],
  postDate: ['postdate'],
  authRespCode: ['authRespCode'],
};

function transactionDetails(fields: Record<string, string>): KnetTransactionDetails {
  const details = Object.fromEntries(
    Object.entries(DETAIL_FIELDS).map(([detail, names]) => [
      detail,
      names.map((name) => fields[name]).find((value) => value !== undefined) ?? '',
    ]),
  ) as Omit<KnetTransactionDetails, 'udfs'>;
  return { ...details, udfs: udfsOf(fields) };
}

/**
 * The state a result names: `FAILURE(NOT CAPTURED)` → `NOT CAPTURED`. K-064 §3.5.5 answers an
 * inquiry with `SUCCESS`/`CAPTURED` or `FAILURE`/`SUSPECTED`; the public kits find the state inside
 * `FAILURE(…)` (asciisd/knet `AbstractKnetService::normalizeResponse`).
 */
export function knetResultState(result: string): string {
  return (/^FAILURE\((.*)\)$/s.exec(result.trim())?.[1] ?? result).trim().toUpperCase();
}

/** K-064 §3.5.5's results of a payment; anything else is left to inquiry. */
export function resultOutcome(result: string): 'captured' | 'declined' | 'canceled' | 'unknown' {
  switch (result) {
    case 'CAPTURED':
      return 'captured';
    case 'NOT CAPTURED':
    case 'DENIED BY RISK':
      return 'declined';
    case 'CANCELED':
    case 'CANCELLED':
      return 'canceled';
    default:
      return 'unknown';
  }
}
