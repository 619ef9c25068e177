import type { SettingValue } from '../../gateways/gateway-drivers';
import type { Gateway, GatewayOperation } from '../../gateways/gateway.entity';

/**
 * The seam where payment gateways plug in (contract §20): one driver per `pg`. A driver is a class
 * implementing {@link GatewayDriver}, listed in `PaymentsModule` under GATEWAY_ADAPTERS.
 *
 * - `card_form` drivers (the sandbox) take the card on Checkout's own page: {@link GatewayDriver.pay}.
 * - `redirect` drivers (Stripe; MPGS and KNET later) send the customer to the provider:
 *   {@link RedirectDriver.start}, then {@link RedirectDriver.complete} on the customer's return and
 *   {@link RedirectDriver.notification} for the provider's server-to-server notices.
 * - `offline` drivers (cash) take no payment at all; the merchant acknowledges it.
 *
 * Every call gets the gateway and its `settings` (secrets decrypted, defaults applied). The durable
 * rules of contract §17 are the pay path's (PaymentsService, RedirectPayments, AttemptSettlement),
 * not the driver's: the attempt is claimed and its reference stored before any call, the answer
 * stored before settling. A driver only talks to its provider and says what the provider says.
 */

/** A driver's settings for one gateway: the gateway's `settings`, secrets decrypted, defaults applied. */
export type DriverSettingsValues = Readonly<Record<string, SettingValue>>;

/** What the provider keeps of an attempt that we need later (its session or order id): never secrets. */
export type ProviderData = Record<string, string>;

export type DriverFlow = 'card_form' | 'redirect' | 'offline';

/** What every call carries. */
export interface DriverCall {
  gateway: Gateway;
  settings: DriverSettingsValues;
  /**
   * When a customer or a merchant is waiting (epoch ms): every provider call made for that one
   * request shares this deadline, so together they answer within contract §17's 10 s. A driver
   * bounds each call by the earlier of its `timeout_ms` and this ({@link callTimeoutMs}). Absent on
   * background calls (the reconciler), which take the background limit.
   */
  deadline?: number;
}

/**
 * How long one provider call may take: the gateway's limit, cut to what is left before the
 * request's shared {@link DriverCall.deadline} (at least 1 ms: a call past it fails at once).
 */
export function callTimeoutMs(
  limitMs: number,
  deadline: number | undefined,
  now: number = Date.now(),
): number {
  if (deadline === undefined) return limitMs;
  // Whole milliseconds: an SDK may ignore a fractional limit (stripe-node takes integers only).
  return Math.max(1, Math.floor(Math.min(limitMs, deadline - now)));
}

export interface PayInput extends DriverCall {
  /** Our reference number for this attempt (also sent to the gateway). */
  referenceNumber: string;
  /** The stored amount (decimal text): never anything the browser sent. */
  amount: string;
  currencyCode: string;
  /** `purchase` charges; `authorize` only holds the amount until a capture or a void. */
  operation: GatewayOperation;
  /**
   * What to charge: the card number (digits only; used for this call only, never stored, never
   * logged), or the gateway's token of a card it saved earlier (contract §15) with the CVC when the
   * customer typed one (the payment page of a card_form gateway), none otherwise.
   * `cardholderPresent`: the customer picked the saved card on our page (a cardholder-initiated
   * charge); absent for a merchant-initiated one (auto-debit).
   */
  card: { number: string } | { gatewayToken: string; cvc?: string; cardholderPresent?: boolean };
  /** Tokenize the card: on success the outcome carries the gateway's token for it. */
  saveCard: boolean;
  /**
   * The transaction's agreement (contract §15) for a merchant-initiated charge (auto-debit), which
   * credential-on-file rules want sent with it (MPGS `agreement`); null or absent otherwise.
   */
  agreement?: ChargeAgreement | null;
  /**
   * Where the customer comes back to when the provider must show them a page first (3-D Secure of a
   * customer-present saved-card charge, contract §20.1): `/gateways/{code}/return/?ref=…`. Absent
   * for a merchant-initiated charge (auto-debit), which never asks the customer anything.
   */
  returnUrl?: string;
}

/**
 * A customer-present charge the provider wants the customer to confirm first (3-D Secure): the
 * attempt stays pending, what the provider keeps of it is stored, and the customer is sent to `url`;
 * they come back to the attempt's return URL, where {@link RedirectDriver.complete} decides.
 */
export interface PayRedirect {
  result: 'redirect';
  url: string;
  provider: ProviderData;
}

export interface AttemptOutcome {
  result: 'success' | 'declined' | 'error';
  /** The gateway's response code, stored with the attempt. */
  responseCode: string;
  /** The gateway's token of the card, when it was asked to save it and the charge succeeded. */
  gatewayToken?: string | null;
  /**
   * What the provider keeps of the attempt (merged into the attempt's `provider_data`): e.g. the
   * PaymentIntent of an off-session charge, which capture, void and refund need later.
   */
  provider?: ProviderData;
}

/**
 * The card a provider charged on its own page, as its record describes it (contract §15): what may be
 * kept, never the number. A redirect attempt has no card of its own (the customer typed it at the
 * provider), so a card it saves is described by this.
 */
export interface ProviderCard {
  /** Display name, e.g. `Visa`. */
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  /** As the customer gave it on the provider's page; empty when the provider has none. */
  nameOnCard: string;
  /**
   * The provider's own fingerprint of the card number (Stripe: `card.fingerprint`): the same card
   * gives the same value, so saving it again keeps one card. Null when the provider gives none.
   */
  fingerprint: string | null;
}

/**
 * A provider's answer about an attempt, as the provider's own record has it. `amount` and
 * `currencyCode` are what the provider charged (or holds): the pay path never settles an attempt
 * paid for another amount or currency (contract §20). `provider` is merged into what the attempt
 * keeps (e.g. the PaymentIntent id learnt on return).
 */
export interface ProviderOutcome extends AttemptOutcome {
  amount?: string;
  currencyCode?: string;
  /** The card charged, when the provider says (needed to save a card typed on its page). */
  card?: ProviderCard;
  /**
   * A decline after which the provider's page still lets the payer try again on the same session
   * (MPGS Hosted Checkout's retries, contract §20.1): not final. The pay path records the decline
   * (the transaction goes `failed`, the customer may start again) and keeps watching the attempt,
   * whose session may still take the payment.
   */
  payerMayRetry?: boolean;
}

export interface InquiryInput extends DriverCall {
  /** The reference number the attempt was sent with. */
  referenceNumber: string;
  /** What the attempt keeps of the provider's side (null when the start call never answered). */
  provider?: ProviderData | null;
  /** Nobody waits on this call (the reconciler): it may take the background time limit. */
  background?: boolean;
  /**
   * For an attempt that charged a saved card ({@link GatewayDriver.pay}): the charge exactly as it
   * was first sent (no CVC: it is never kept), so that a driver whose provider deduplicates by key
   * re-sends it under the same idempotency key to learn its outcome (Stripe) instead of searching
   * (contract §20.1: unknown outcomes are asked, not guessed). Absent for redirect attempts.
   */
  payment?: Omit<PayInput, keyof DriverCall>;
}

/**
 * What inquiry learns (contract §20.1: the provider's session is open, final or unknown):
 * - an outcome: the provider's final word (paid, authorized, declined, error), or a decline after
 *   which its page still takes the payment ({@link ProviderOutcome.payerMayRetry});
 * - `'open'`: nothing taken yet, and the provider's session may still take the payment;
 * - `null`: nothing taken, and nothing can be any more (never received, session over, canceled and
 *   closed at the provider). Only the provider's own record may say this: never a search that may
 *   lag, never a timer of ours alone.
 * Unknown (no answer, an answer the driver does not recognise as final) is a throw, never a guess.
 */
export type InquiryAnswer = ProviderOutcome | null | 'open';

export type FollowUpOperation = 'capture' | 'void' | 'refund';

export interface FollowUpInput extends DriverCall {
  operation: FollowUpOperation;
  /** The reference number of the successful attempt the operation applies to. */
  referenceNumber: string;
  /** What that attempt keeps of the provider's side. */
  provider?: ProviderData | null;
  amount: string;
  currencyCode: string;
  /** The amount is less than what the operation could take (a partial capture or refund). */
  partial?: boolean;
  /**
   * The operation's own key (contract §20), the same every time this operation is retried (the
   * merchant's request, then inquiry or the reconciler). A driver sends it as the provider's
   * idempotency key (Stripe's Idempotency-Key) or keeps its own record by it: followUp with the
   * same operationKey must not carry the operation out twice and must report the first outcome.
   */
  operationKey?: string;
  /**
   * This key was sent before and its answer never came (the reconciler, inquiry, or the merchant
   * repeating the operation). A provider that cannot deduplicate by key (KNET) must not be asked
   * to carry it out again: the driver answers `unknown` and a person checks it (docs/operations.md).
   */
  repeat?: boolean;
}

export interface FollowUpOutcome {
  /** `unknown`: the provider did not answer in time; nothing is known of the outcome yet. */
  result: 'success' | 'failed' | 'unknown';
  /** A message for the operations API's `detail` when the gateway refuses. */
  message?: string;
}

/** Where our return and notify routes are, for a redirect start (contract §20). */
export interface RedirectUrls {
  /** `/b/checkout/v1/gateways/{code}/return/` with the attempt's reference. */
  returnUrl: string;
  /** The same, saying the customer canceled on the provider's page. */
  cancelUrl: string;
  /** `/b/checkout/v1/gateways/{code}/notify/`. */
  notifyUrl: string;
}

export interface StartInput extends DriverCall, RedirectUrls {
  referenceNumber: string;
  amount: string;
  currencyCode: string;
  operation: GatewayOperation;
  /** Shown on the provider's page. */
  description: string;
  /** The transaction's deadline: the provider's page stops taking payment by then where it can. */
  expiresAt?: Date;
  /**
   * Save the card typed on the provider's page for later charges (contract §15); absent for a
   * one-off payment. The success outcome then carries the provider's token and `card`.
   */
  saveCard?: SaveCardRequest;
}

/** An agreement as the drivers send it: our id and type (`recurring`, `installment`, `unscheduled`). */
export interface ChargeAgreement {
  id: string;
  type: string;
}

/** Who a card saved on the provider's page belongs to. */
export interface SaveCardRequest {
  /** The transaction's `customer_id`. */
  customerId: string;
  /** The agreement the card is saved under (`payment_type` `auto_debit`), for credential-on-file rules. */
  agreement?: ChargeAgreement | null;
  /**
   * The gateway tokens of this customer's cards already saved on this gateway, most recently used
   * first: a provider that keeps its own customer record (Stripe's Customer) reuses it from them.
   */
  savedTokens: string[];
}

/** Where the customer goes: a 303 to the provider, or a page of ours that loads the provider's script. */
export type CustomerDestination =
  { kind: 'redirect'; url: string } | { kind: 'script_page'; scriptUrl: string; sessionId: string };

export interface StartResult {
  /**
   * Kept with the attempt before the customer is sent on (session id, its URL). Two keys mean
   * something to the pay path: `resume_until` (ISO 8601: until when the session may be handed to
   * the customer again, see storedDestination) and `payable_until` (ISO 8601: after it the
   * provider's session can no longer take money — Stripe's `expires_at`, MPGS's session lifetime,
   * KNET's page limit — so a transaction whose customer left that session may expire then).
   */
  provider: ProviderData;
  destination: CustomerDestination;
}

export interface CompleteInput extends DriverCall {
  referenceNumber: string;
  provider: ProviderData | null;
  /** What the browser brought back (query and form): a hint, never proof (contract §20). */
  params: Record<string, string>;
}

/**
 * The customer's return, checked with the provider: an {@link InquiryAnswer}, or `'left'`: the
 * customer is back without paying (a cancel or error link, 3-D Secure abandoned) while the
 * provider's session may still take the payment. The pay path then lets the customer start again
 * and keeps watching the attempt (contract §20.1). `'open'` on a return means the provider is still
 * deciding (the "being confirmed" page).
 */
export type Completion = InquiryAnswer | 'left';

export interface NotificationInput extends DriverCall {
  /** The body exactly as received: signatures are computed over it. */
  rawBody: string;
  headers: Record<string, string | undefined>;
  /** The gateway's return URL, without query: for providers whose answer names it (KNET's `REDIRECT=`). */
  returnUrl: string;
}

/**
 * What the notify route answers the provider instead of its default JSON, for providers that expect
 * a particular answer (KNET: the one line `REDIRECT=<receipt URL>`, `text/plain`; K-064 §5, §9.2.1).
 */
export interface NotificationReply {
  contentType: string;
  body: string;
}

/**
 * A verified notification: about one of our attempts, or something to acknowledge and ignore; either
 * may carry the {@link NotificationReply} the provider expects.
 */
export type ProviderNotification = (
  | { kind: 'outcome'; referenceNumber: string; outcome: ProviderOutcome }
  /**
   * A verified notice about one of our attempts that is no proof of its outcome by itself: the pay
   * path asks the provider ({@link GatewayDriver.inquire}, single-flight and briefly cached, so a
   * burst of notices makes one call). `provider`: what to keep with the attempt first (e.g. KNET's
   * decrypted result post, a certification item).
   */
  | { kind: 'ask'; referenceNumber: string; provider?: ProviderData }
  | { kind: 'ignore' }
) & { reply?: NotificationReply };

/**
 * A provider answered a call with an error, or did not answer (contract §20.1: a provider's own HTTP
 * status never becomes ours). The merchant gets 503 (`retryable`: the provider's 429 or 5xx, a
 * timeout, a refused connection) or 502 (the provider refused the request: its 401, 403, 409…),
 * with `provider_error` in the body. `message` is the provider's, never a secret or card data.
 */
export class ProviderCallFailed extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly details: { status?: number | null; code?: string | null; retryable: boolean },
  ) {
    super(message);
    this.name = 'ProviderCallFailed';
  }
}

/** A notification that is forged or cannot be verified (400, nothing changes). */
export class UnverifiedNotification extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnverifiedNotification';
  }
}

export interface GatewayDriver {
  /** The driver's `pg` name, for logs. */
  readonly name: string;
  /** How the customer pays through it. */
  readonly flow: DriverFlow;
  /** The gateway settings this driver serves. */
  serves(gateway: Gateway): boolean;
  /**
   * Charges (or authorizes) once, a typed card (card_form drivers) or a saved one (any tokenizing
   * driver). May throw when the gateway cannot be reached or its answer is lost: the outcome is
   * then unknown (the attempt stays pending, never failed), and {@link inquire} tells it later.
   * A customer-present charge may answer {@link PayRedirect} (3-D Secure).
   */
  pay(input: PayInput): Promise<AttemptOutcome | PayRedirect>;
  /**
   * What the gateway knows of an attempt, by our reference number (contract §17). Throws when the
   * gateway cannot be asked now (the reconciler asks again later).
   */
  inquire(input: InquiryInput): Promise<InquiryAnswer>;
  /**
   * Capture, void or refund an earlier successful attempt. Called again with the same
   * `operationKey` when an earlier call brought no answer (`unknown`): it must not carry the
   * operation out twice, and must report the first outcome (contract §20). `unknown` only when the
   * provider's answer is really not known; a refusal is `failed`.
   */
  followUp(input: FollowUpInput): Promise<FollowUpOutcome>;
}

/** A driver that sends the customer to the provider's page (flow `redirect`). */
export interface RedirectDriver extends GatewayDriver {
  readonly flow: 'redirect';
  /** Creates the provider's payment session. Throws when the provider refuses or does not answer. */
  start(input: StartInput): Promise<StartResult>;
  /** The customer's return, confirmed server to server. Throws when the provider cannot be asked. */
  complete(input: CompleteInput): Promise<Completion>;
  /**
   * The attempt's reference from the provider's return parameters, for providers whose return URL
   * cannot carry our `ref` (KNET: decrypted `trandata`'s track id). Optional; null when unreadable.
   */
  returnReference?(call: DriverCall, params: Record<string, string>): Promise<string | null>;
  /**
   * The origins of the provider's payment page, which a form of ours that answers with a redirect
   * there must be allowed to reach (CSP `form-action` also applies to the redirect). Optional.
   */
  pageOrigins?(call: DriverCall): string[];
  /** Verifies a notification first (throws {@link UnverifiedNotification}), then reads it. */
  notification(input: NotificationInput): Promise<ProviderNotification>;
  /**
   * Makes an open session unpayable where the provider can (Stripe: expire the Checkout Session):
   * `null` once it can no longer be paid, the outcome when it was paid meanwhile, or `'open'` when
   * the provider offers no way to end it (MPGS, KNET): the pay path then keeps watching it.
   */
  abandon(input: InquiryInput): Promise<InquiryAnswer>;
}

export function isRedirectDriver(driver: GatewayDriver): driver is RedirectDriver {
  return driver.flow === 'redirect';
}

/** The seam's former name. */
export type GatewayAdapter = GatewayDriver;

/** Injection token of the list of drivers. */
export const GATEWAY_ADAPTERS = Symbol('GATEWAY_ADAPTERS');
