import { Injectable } from '@nestjs/common';
import { isSandbox } from '../../../gateways/gateway.entity';
import {
  type AttemptOutcome,
  callTimeoutMs,
  type Completion,
  type CompleteInput,
  type DriverCall,
  type FollowUpInput,
  type FollowUpOutcome,
  type InquiryAnswer,
  type InquiryInput,
  type NotificationInput,
  type NotificationReply,
  ProviderCallFailed,
  type ProviderData,
  type ProviderNotification,
  type ProviderOutcome,
  type RedirectDriver,
  type StartInput,
  type StartResult,
  UnverifiedNotification,
} from '../../adapters/gateway-adapter';
import {
  KnetAnswerError,
  KnetClient,
  type KnetInquiryAnswer,
  knetDefaultUrls,
  KnetRequestError,
  knetResultState,
  type KnetResultMessage,
  type KnetTransactionDetails,
  KnetUnverifiedError,
  resultOutcome,
} from '../../providers/knet/knet-client';
import { ProviderTransportError } from '../../providers/provider-http';
import { ProviderDriver } from '../provider-driver';
import { KNET_CATALOGUE } from './knet.catalogue';

export const KNET_PG = KNET_CATALOGUE.pg;
/** KNET takes only Kuwaiti dinars (K-064 §3.5.4 "Currency Code" 414). */
const KWD = 'KWD';
/** Calls nobody waits on (the reconciler, inquiry of old attempts) may take 20 s (contract §20). */
const BACKGROUND_TIMEOUT_MS = 20_000;
/** The gateway's `timeout_ms` when the settings carry none (the catalogue's default). */
const DEFAULT_TIMEOUT_MS = 8000;
/**
 * How long KNET's payment page takes a payment after it was opened: the gateway's
 * `page_timeout_minutes` (default 30, contract §20.1). KNET documents the limit (K-064 §10
 * `IPAY0100042` *Transaction time limit exceeds*) but not its length: ask KNET for the terminal's
 * (docs/gateways/knet.md "Before going live"). Until then a page KNET reports `INITIATED` (or a
 * track it does not know yet, `IPAY0100263`) may still be paid, so it is never written off before.
 */
export const KNET_PAGE_TIMEOUT_DEFAULT_MINUTES = 30;
/**
 * The states of KNET's record that end a payment with nothing taken (a decline): K-064 §3.5.5's
 * `NOT CAPTURED` and `HOST TIMEOUT` (results of a submitted page) and, for inquiry, `FAILURE` and
 * `SUSPECTED` ("Transaction has failed"); §10 `IPAY0100045` *Denied by Risk* (`DENIED BY RISK`); a
 * payment KNET reversed because our `REDIRECT=` reply did not reach it (§9.2.1 "auto-void"; its
 * inquiry word is not documented: `REVERSED` in the simulator, `VOID` in asciisd/knet's
 * `PaymentStatus::FAILED_RESPONSES`). Any other state is not known to be final: unknown (a throw).
 */
const DECLINED_STATES = new Set([
  'NOT CAPTURED',
  'HOST TIMEOUT',
  'FAILURE',
  'SUSPECTED',
  'DENIED BY RISK',
  'REVERSED',
  'VOID',
  'VOIDED',
]);
/** The customer pressed Cancel on KNET's page (K-064 §3.5.5 `CANCELED`): the page is over. */
const CANCELED_STATES = new Set(['CANCELED', 'CANCELLED']);
/**
 * KNET's error answers that say "try again later" (K-064 §10: *Unable to process the request*,
 * *Host timeout*, *External message system error*, *Problem occurred …*, every `IPAY02…`); any
 * other code is KNET refusing the request (wrong credentials, amount, track): retrying will not help.
 */
const RETRYABLE_CODES = new Set([
  'IPAY0100038',
  'IPAY0100158',
  'IPAY0100159',
  'IPAY0100160',
  'IPAY0100163',
  'IPAY0100203',
  'IPAY0100245',
]);
/** Hosts KNET cannot reach anyway: http is allowed there (tests, local runs); everywhere else https. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** The return URL's parameters that are ours: KNET's own are `trackid`, `Error`, `ErrorText`, `paymentid`. */
const TRACK_PARAM = 'trackid';
const CANCEL_PARAM = 'cancel';
/** A track id as KNET may send it back (K-064 §3.5.4: ≤ 40 alphanumerics); ours have ≤ 19. */
const TRACK_ID = /^[A-Za-z0-9]{1,40}$/;

/**
 * The `knet` driver (contract §20; docs/gateways/knet.md), on {@link KnetClient} (KNET's RAW merchant
 * integration, *Merchant Integration Manual* K-064 v1.4; a public copy is in
 * https://github.com/srku14/KNET-Payment-Gateway-SDK):
 *
 * - start: `trandata` with trackid = the attempt's reference (its `reference_number`, at most 19
 *   characters: KNET's `transid` limit, K-064 §3.5.4), the KWD amount with three decimals,
 *   `responseURL` = our notify URL, `errorURL` = our return URL without query (KNET refuses query
 *   strings there); the customer is sent to the payment URL, which carries the encrypted password:
 *   it is never stored nor logged, so a KNET attempt is never resumed (every initialization needs a
 *   new track ID anyway, K-064 §8 point 2). `payable_until`: the page's time limit;
 * - the result post (K-064 §3.5.2, §5), as a form or as the bare `trandata` hex: decrypted with the
 *   resource key (a post that does not decrypt → 400); a decline is final (KNET's page ends on its
 *   result post: it sends the customer to our receipt URL, §5) and settles at once; anything else
 *   (`CAPTURED` first) is asked of KNET's own record (tranPipe inquiry), because KNET reverses a
 *   payment whose `REDIRECT=` answer it did not get (K-064 §9.2.1). Either way the decrypted post
 *   and KNET's Payment ID are kept with the attempt (§5 "MUST save … plain text response", §8
 *   point 6), and the answer is the one line `REDIRECT=<return URL>?trackid=<reference>`;
 * - the customer's return and inquiry: tranPipe action 8 by track id (K-064 §3.5.3): `INITIATED`
 *   (nothing submitted) is `'open'` while the page may still pay and `null` after its time limit;
 *   KNET's errorURL link (`?Error=…`) while the page may still pay is `'left'`; an answer not known
 *   to be final, or an error answer, is never a decline (a throw; {@link ProviderCallFailed});
 * - refund, full and partial: tranPipe action 2 (K-064 §3.7.2), never repeated by us; capture and
 *   void do not exist (KNET is purchase only); cards cannot be saved.
 */
@Injectable()
export class KnetDriver extends ProviderDriver implements RedirectDriver {
  static readonly catalogue = KNET_CATALOGUE;

  constructor() {
    super(KNET_PG, 'KnetDriver');
  }

  /**
   * Builds the payment URL; no call to KNET is made (the customer's browser carries `trandata`).
   * Throws for what KNET would refuse (another currency, more than three decimals, a URL KNET
   * cannot take): the pay path then releases the attempt.
   */
  start(input: StartInput): Promise<StartResult> {
    return Promise.resolve().then(() => {
      if (input.currencyCode !== KWD) throw new KnetRequestError(`KNET takes only ${KWD}`);
      if (input.operation !== 'purchase') throw new KnetRequestError('KNET only takes purchases');
      const client = clientFor(input);
      const redirect = client.paymentRedirect({
        trackId: input.referenceNumber,
        amount: input.amount,
        responseUrl: reachableUrl(input.notifyUrl),
        errorUrl: reachableUrl(withoutQuery(input.returnUrl)),
      });
      const started = Date.now();
      return {
        // Never the URL: it carries the encrypted password (docs/gateways/knet.md).
        provider: {
          track_id: redirect.trackId,
          amount: redirect.amount,
          started_at: new Date(started).toISOString(),
          payable_until: new Date(started + pageLimitMs(input)).toISOString(),
        },
        destination: { kind: 'redirect', url: redirect.url },
      };
    });
  }

  /**
   * The result post. Every refusal is the same UnverifiedNotification, and nothing decrypted is
   * logged (no decryption oracle; docs/gateways/knet.md).
   */
  notification(input: NotificationInput): Promise<ProviderNotification> {
    return Promise.resolve().then(() => {
      const client = clientFor(input);
      let content;
      try {
        content = client.openResult(input.rawBody);
      } catch (error) {
        if (error instanceof KnetUnverifiedError) throw new UnverifiedNotification(error.reason);
        throw error;
      }
      if (content.kind === 'error') {
        // Plain text, proves nothing: the customer goes to the return page, which asks KNET.
        const track = TRACK_ID.test(content.claimedTrackId) ? content.claimedTrackId : null;
        this.logger.warn({ knet: 'result', error: content.error.slice(0, 32) }, 'KNET posted an error');
        return { kind: 'ignore', reply: reply(client, input.returnUrl, track, false) };
      }
      const message = content.message;
      if (!TRACK_ID.test(message.trackId)) throw new UnverifiedNotification('trackid is not one of ours');
      const outcome = resultOutcome(message.result);
      const kept = resultPostOf(message);
      if (outcome === 'declined') {
        // Final: KNET's page ends on its result post (K-064 §3.5.2, §5: KNET then sends the customer
        // to our receipt URL), and a track is initialized once (§8 point 2): nothing can pay it now.
        const decline = declined(message, message.result);
        return {
          kind: 'outcome',
          referenceNumber: message.trackId,
          outcome: { ...decline, provider: { ...decline.provider, ...kept } },
          reply: reply(client, input.returnUrl, message.trackId, false),
        };
      }
      // CAPTURED: no proof by itself, since KNET reverses it if this answer does not reach it
      // (K-064 §9.2.1): KNET's own record (inquiry) decides. CANCELED, HOST TIMEOUT and the
      // undocumented: the same.
      this.logger.log(
        { knet: 'result', trackId: message.trackId, outcome },
        'KNET posted a result; its record is asked',
      );
      return {
        kind: 'ask',
        referenceNumber: message.trackId,
        provider: kept,
        reply: reply(client, input.returnUrl, message.trackId, outcome === 'canceled'),
      };
    });
  }

  /** The track id KNET sends back on the receipt URL (ours) and on the errorURL (its own). */
  returnReference(_call: DriverCall, params: Record<string, string>): Promise<string | null> {
    const track = params[TRACK_PARAM] ?? '';
    return Promise.resolve(TRACK_ID.test(track) ? track : null);
  }

  /**
   * The customer's return, confirmed by inquiry (contract §20: the browser's parameters never
   * decide). KNET's errorURL link (`?Error=…&trackid=…`, unauthenticated) while KNET's page may
   * still take the payment is `'left'`: the customer may start again, the attempt stays watched (the
   * page in another tab, or the payment URL the browser still holds, may pay it). After the page's
   * time limit, KNET's record decides as for any inquiry.
   */
  async complete(input: CompleteInput): Promise<Completion> {
    const known = this.meaning(await this.ask(input, false), input);
    if (known === 'open' && input.params.Error !== undefined) return 'left';
    return known;
  }

  inquire(input: InquiryInput): Promise<InquiryAnswer> {
    return this.ask(input, input.background === true).then((answer) => this.meaning(answer, input));
  }

  /**
   * KNET cannot expire its page: inquiry says what it knows. A page that may still take the
   * payment stays `'open'`: the pay path keeps watching it until KNET's page limit has passed.
   */
  abandon(input: InquiryInput): Promise<InquiryAnswer> {
    return this.inquire(input);
  }

  pay(): Promise<AttemptOutcome> {
    return Promise.reject(new Error('KNET cannot save cards: it takes the card on its own page (start)'));
  }

  /**
   * Refund (full or partial) through tranPipe action 2 (K-064 §3.7.2, §3.7.3), where the terminal
   * allows it. KNET documents no idempotency for it: it is sent once and never repeated by us; no
   * answer → `unknown` (the operation stays pending; docs/gateways/knet.md says how to check).
   */
  async followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    if (input.operation !== 'refund') return { result: 'failed', message: `KNET cannot ${input.operation}.` };
    if (input.repeat) {
      // KNET has no idempotency key and no refund lookup (docs/gateways/knet.md): a refund whose
      // answer was lost is never sent again; it stays pending for a person to check in KNET's portal.
      this.logger.warn(
        { knet: 'refund', trackId: input.referenceNumber },
        'A KNET refund whose answer was lost is not sent again: check it in KNET’s merchant portal',
      );
      return { result: 'unknown' };
    }
    const client = clientFor(input);
    try {
      const answer = await client.refund(
        { trackId: input.referenceNumber, amount: input.amount },
        { timeoutMs: callTimeoutMs(timeoutMsOf(input), input.deadline) },
      );
      if (answer.status === 'refunded') return { result: 'success' };
      const why = answer.errorText ? `${answer.errorCode ?? ''} ${answer.errorText}`.trim() : answer.result;
      return { result: 'failed', message: `KNET refused the refund: ${why}` };
    } catch (error) {
      if (error instanceof KnetRequestError) return { result: 'failed', message: error.message };
      if (error instanceof ProviderTransportError || error instanceof KnetAnswerError) {
        this.logger.warn(
          { knet: 'refund', trackId: input.referenceNumber, err: error.message },
          'KNET did not confirm a refund; it may have happened',
        );
        return { result: 'unknown' };
      }
      throw error;
    }
  }

  /**
   * Inquiry by track id, for the attempt's amount (KNET wants the original one), within the
   * request's shared deadline, or the background limit when nobody waits. KNET's error answers and
   * silences become {@link ProviderCallFailed} (never a decline, never our own error status).
   */
  private async ask(input: InquiryInput | CompleteInput, background: boolean): Promise<KnetInquiryAnswer> {
    const amount = input.provider?.amount;
    if (!amount) return { status: 'not_found', errorCode: 'not started' };
    const timeoutMs = background ? BACKGROUND_TIMEOUT_MS : callTimeoutMs(timeoutMsOf(input), input.deadline);
    try {
      return await clientFor(input).inquire({ trackId: input.referenceNumber, amount }, { timeoutMs });
    } catch (error) {
      throw providerFailure(error);
    }
  }

  /** What KNET's record means for the attempt (contract §17, §20, §20.1). */
  private meaning(
    answer: KnetInquiryAnswer,
    input: DriverCall & { provider?: ProviderData | null },
  ): InquiryAnswer {
    switch (answer.status) {
      case 'not_found':
      case 'initiated':
        // Nothing taken yet: the page may still take it until its time limit, and not after
        // (K-064 §10 IPAY0100042), when KNET's record saying nothing was taken is final.
        return pageMayStillPay(input) ? 'open' : null;
      case 'captured':
        return {
          result: 'success',
          responseCode: 'CAPTURED',
          amount: answer.details.amount || input.provider?.amount,
          currencyCode: KWD,
          provider: providerOf(answer.details),
        };
      case 'not_captured': {
        const state = knetResultState(answer.details.result);
        // Canceled on KNET's page: nothing was charged and nothing will be on this track.
        if (CANCELED_STATES.has(state)) return null;
        if (DECLINED_STATES.has(state)) return declined(answer.details, state);
        throw new ProviderCallFailed(
          KNET_PG,
          `KNET's inquiry answered "${state.slice(0, 40)}", which is not known to be final`,
          { status: null, code: state.slice(0, 32), retryable: true },
        );
      }
    }
  }
}

/** A KnetClient for one gateway's settings; KNET's test hosts by default on a sandbox gateway. */
function clientFor(call: DriverCall): KnetClient {
  const { settings, gateway } = call;
  const text = (key: string) => (typeof settings[key] === 'string' ? settings[key] : '');
  const hosts = knetDefaultUrls(isSandbox(gateway));
  return new KnetClient(
    {
      tranportalId: text('tranportal_id'),
      tranportalPassword: text('tranportal_password'),
      resourceKey: text('resource_key'),
      paymentUrl: text('payment_url') || hosts.paymentUrl,
      inquiryUrl: text('inquiry_url') || hosts.inquiryUrl,
    },
    { timeoutMs: timeoutMsOf(call) },
  );
}

/** The gateway's `timeout_ms` (contract §20: a call someone waits on). */
function timeoutMsOf(call: DriverCall): number {
  const value = Number(call.settings.timeout_ms);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_TIMEOUT_MS;
}

/** The gateway's `page_timeout_minutes`, in ms (contract §20.1; default 30 minutes). */
function pageLimitMs(call: DriverCall): number {
  const minutes = Number(call.settings.page_timeout_minutes);
  return (Number.isFinite(minutes) && minutes > 0 ? minutes : KNET_PAGE_TIMEOUT_DEFAULT_MINUTES) * 60_000;
}

/**
 * KNET's failure to answer an inquiry as the seam's {@link ProviderCallFailed} (contract §20.1: a
 * provider's status never becomes ours): retryable for silences, KNET's 429 and 5xx, and its
 * "try again" codes; not for a refusal (credentials, amount, track) or a request we would not send.
 */
function providerFailure(error: unknown): unknown {
  if (error instanceof ProviderTransportError)
    return new ProviderCallFailed(KNET_PG, error.message, {
      status: null,
      code: error.kind,
      retryable: true,
    });
  if (error instanceof KnetAnswerError) {
    const status = error.httpStatus ?? null;
    const code = error.errorCode ?? null;
    const retryable =
      status !== null
        ? status === 429 || status >= 500
        : code !== null
          ? RETRYABLE_CODES.has(code) || code.startsWith('IPAY02')
          : !/another track or amount/.test(error.message);
    return new ProviderCallFailed(KNET_PG, error.message, { status, code, retryable });
  }
  if (error instanceof KnetRequestError)
    return new ProviderCallFailed(KNET_PG, error.message, {
      status: null,
      code: 'request',
      retryable: false,
    });
  return error;
}

/** `REDIRECT=<our return URL>?trackid=<reference>` (and `&cancel=1`), `text/plain` (K-064 §5). */
function reply(
  client: KnetClient,
  returnUrl: string,
  trackId: string | null,
  canceled: boolean,
): NotificationReply {
  const receipt = new URL(returnUrl);
  if (trackId) receipt.searchParams.set(TRACK_PARAM, trackId);
  if (trackId && canceled) receipt.searchParams.set(CANCEL_PARAM, '1');
  return { contentType: 'text/plain', body: client.notificationReply(receipt.toString()) };
}

/**
 * KNET only posts to https on port 443 (K-064 §2.1.3, §12.2c); http is accepted on loopback hosts
 * only, where the simulator runs (docs/gateways/knet.md "https").
 */
function reachableUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !LOOPBACK_HOSTS.has(parsed.hostname))
    throw new KnetRequestError('KNET needs https URLs: set PUBLIC_BASE_URL to an https address');
  return url;
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

/**
 * Whether KNET's page may still take the payment: until the attempt's `payable_until` (kept at
 * start), or `started_at` plus the gateway's page limit for attempts started without it.
 */
function pageMayStillPay(call: DriverCall & { provider?: ProviderData | null }): boolean {
  const until = Date.parse(call.provider?.payable_until ?? '');
  if (Number.isFinite(until)) return Date.now() < until;
  const started = Date.parse(call.provider?.started_at ?? '');
  return Number.isFinite(started) && Date.now() - started < pageLimitMs(call);
}

/**
 * What the attempt keeps of a verified result post (K-064 §5: "The Merchant MUST save both
 * encrypted & plain text response details"; §8 point 6): every decrypted field as JSON
 * (`result_post`), the `trandata` as posted (`result_trandata`), and KNET's Payment ID, which the
 * result page shows (§8 point 4).
 */
function resultPostOf(message: KnetResultMessage): ProviderData {
  const kept: ProviderData = {
    result_post: JSON.stringify(message.fields),
    result_trandata: message.trandata,
  };
  if (message.paymentId) kept.payment_id = message.paymentId;
  return kept;
}

function declined(details: KnetTransactionDetails, result: string): ProviderOutcome {
  return {
    result: 'declined',
    responseCode: result.slice(0, 32),
    amount: details.amount,
    currencyCode: KWD,
    provider: providerOf(details),
  };
}

/** What the attempt keeps of KNET's record: its ids, never anything secret. */
function providerOf(details: KnetTransactionDetails): ProviderData {
  const data: ProviderData = {};
  if (details.paymentId) data.payment_id = details.paymentId;
  if (details.tranId) data.tran_id = details.tranId;
  if (details.ref) data.ref = details.ref;
  if (details.auth) data.auth = details.auth;
  return data;
}
