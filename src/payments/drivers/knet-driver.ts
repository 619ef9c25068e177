import { Injectable } from '@nestjs/common';
import { isSandbox } from '../../gateways/gateway.entity';
import {
  type AttemptOutcome,
  type Completion,
  type CompleteInput,
  type DriverCall,
  type FollowUpInput,
  type FollowUpOutcome,
  type InquiryAnswer,
  type InquiryInput,
  type NotificationInput,
  type NotificationReply,
  type ProviderData,
  type ProviderNotification,
  type ProviderOutcome,
  type RedirectDriver,
  type StartInput,
  type StartResult,
  UnverifiedNotification,
} from '../adapters/gateway-adapter';
import {
  KnetAnswerError,
  KnetClient,
  type KnetInquiryAnswer,
  knetDefaultUrls,
  KnetRequestError,
  type KnetTransactionDetails,
  KnetTransportError,
  KnetUnverifiedError,
  resultOutcome,
} from '../providers/knet/knet-client';
import { ProviderDriver } from './provider-driver';

export const KNET_PG = 'knet';
/** KNET takes only Kuwaiti dinars (K-064 §3.5.4 "Currency Code" 414). */
const KWD = 'KWD';
/** Calls nobody waits on (the reconciler, inquiry of old attempts) may take 20 s (contract §20). */
const BACKGROUND_TIMEOUT_MS = 20_000;
/**
 * How long KNET's payment page may still take a payment after it was opened. KNET documents the
 * limit (`IPAY0100042` *Transaction time limit exceeds*) but not its length; until then a track
 * KNET does not know yet (`IPAY0100263`) may still be paid, so it is never written off before
 * (docs/gateways/knet.md "Inquiry").
 */
export const KNET_PAGE_LIMIT_MS = 30 * 60_000;
/** Hosts KNET cannot reach anyway: http is allowed there (tests, local runs); everywhere else https. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** The return URL's parameters that are ours: KNET's own are `trackid`, `Error`, `ErrorText`, `paymentid`. */
const TRACK_PARAM = 'trackid';
const CANCEL_PARAM = 'cancel';
const TRACK_ID = /^[A-Za-z0-9]{1,40}$/;
const ERROR_CODE = /^[A-Za-z0-9]{1,32}$/;

/**
 * The `knet` driver (contract §20; docs/gateways/knet.md), on {@link KnetClient} (KNET's RAW merchant
 * integration, *Merchant Integration Manual* K-064 v1.4; a public copy is in
 * https://github.com/srku14/KNET-Payment-Gateway-SDK):
 *
 * - start: `trandata` with trackid = the attempt's reference, the KWD amount with three decimals,
 *   `responseURL` = our notify URL, `errorURL` = our return URL without query (KNET refuses query
 *   strings there); the customer is sent to the payment URL, which carries the encrypted password:
 *   it is never stored nor logged, so a KNET attempt is never resumed (every initialization needs a
 *   new track ID anyway, K-064 §8 point 2);
 * - the result post (K-064 §3.5.2, §5): `trandata` decrypted with the resource key (a post that does
 *   not decrypt → 400); a decline settles at once; `CAPTURED` is only believed once the tranPipe
 *   inquiry confirms it (the customer's return, or the reconciler), because KNET reverses a payment
 *   whose `REDIRECT=` answer it did not get (K-064 §9.2.1); the answer is that line, naming our
 *   return URL with `?trackid=<reference>`;
 * - the customer's return and inquiry: tranPipe action 8 by track id (K-064 §3.5.3);
 * - refund, full and partial: tranPipe action 2 (K-064 §3.7.2), never repeated by us; capture and
 *   void do not exist (KNET is purchase only); cards cannot be saved.
 */
@Injectable()
export class KnetDriver extends ProviderDriver implements RedirectDriver {
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
      return {
        // Never the URL: it carries the encrypted password (docs/gateways/knet.md).
        provider: {
          track_id: redirect.trackId,
          amount: redirect.amount,
          started_at: new Date().toISOString(),
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
      if (outcome === 'declined') {
        return {
          kind: 'outcome',
          referenceNumber: message.trackId,
          outcome: declined(message, message.result),
          reply: reply(client, input.returnUrl, message.trackId, false),
        };
      }
      // CAPTURED: confirmed by inquiry on the return (or by the reconciler), never from the post
      // alone: KNET reverses it if this answer does not reach it. CANCELED: the return abandons
      // the attempt (its inquiry says so). HOST TIMEOUT and the undocumented: inquiry decides.
      this.logger.log(
        { knet: 'result', trackId: message.trackId, outcome },
        'KNET posted a result; inquiry confirms it',
      );
      return {
        kind: 'ignore',
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
   * decide). KNET's `Error` on the errorURL with a track KNET does not know means it never opened
   * its page for it: the attempt ends as a gateway error (nothing charged, payable again).
   */
  async complete(input: CompleteInput): Promise<Completion> {
    const answer = await this.ask(input, false);
    const error = input.params.Error ?? '';
    if (answer.status === 'not_found' && error)
      return { result: 'error', responseCode: ERROR_CODE.test(error) ? error : 'KNET error' };
    return this.meaning(answer, input);
  }

  inquire(input: InquiryInput): Promise<InquiryAnswer> {
    return this.ask(input, input.background === true).then((answer) => this.meaning(answer, input));
  }

  /**
   * KNET cannot expire its page: inquiry says what it knows. A page that may still take the
   * payment stays `'open'` (the attempt keeps its hold until KNET's page limit has passed).
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
      const answer = await client.refund({ trackId: input.referenceNumber, amount: input.amount });
      if (answer.status === 'refunded') return { result: 'success' };
      const why = answer.errorText ? `${answer.errorCode ?? ''} ${answer.errorText}`.trim() : answer.result;
      return { result: 'failed', message: `KNET refused the refund: ${why}` };
    } catch (error) {
      if (error instanceof KnetRequestError) return { result: 'failed', message: error.message };
      if (error instanceof KnetTransportError || error instanceof KnetAnswerError) {
        this.logger.warn(
          { knet: 'refund', trackId: input.referenceNumber, err: error.message },
          'KNET did not confirm a refund; it may have happened',
        );
        return { result: 'unknown' };
      }
      throw error;
    }
  }

  /** Inquiry by track id, for the attempt's amount (KNET wants the original one). */
  private ask(input: InquiryInput | CompleteInput, background: boolean): Promise<KnetInquiryAnswer> {
    const amount = input.provider?.amount;
    if (!amount) return Promise.resolve({ status: 'not_found', errorCode: 'not started' });
    return clientFor(input).inquire(
      { trackId: input.referenceNumber, amount },
      background ? { timeoutMs: BACKGROUND_TIMEOUT_MS } : {},
    );
  }

  /** What KNET's record means for the attempt (contract §17, §20). */
  private meaning(answer: KnetInquiryAnswer, input: { provider?: ProviderData | null }): InquiryAnswer {
    if (answer.status === 'not_found') return pageMayStillPay(input.provider) ? 'open' : null;
    const details = answer.details;
    if (answer.status === 'captured') {
      return {
        result: 'success',
        responseCode: 'CAPTURED',
        amount: details.amount || input.provider?.amount,
        currencyCode: KWD,
        provider: providerOf(details),
      };
    }
    const result = stateOf(details.result);
    // Canceled on KNET's page: nothing was charged and nothing will be on this track.
    if (result === 'CANCELED' || result === 'CANCELLED') return null;
    return declined(details, result);
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
    typeof settings.timeout_ms === 'number' ? { timeoutMs: settings.timeout_ms } : {},
  );
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

/** Whether KNET's page, opened at `started_at`, may still take the payment. */
function pageMayStillPay(provider: ProviderData | null | undefined): boolean {
  const started = Date.parse(provider?.started_at ?? '');
  return Number.isFinite(started) && Date.now() - started < KNET_PAGE_LIMIT_MS;
}

/** `FAILURE(NOT CAPTURED)` → `NOT CAPTURED` (the simulator's form of inquiry results). */
function stateOf(result: string): string {
  return /^FAILURE\((.*)\)$/.exec(result)?.[1] ?? result;
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
