import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CardsRepository } from '../cards/cards.repository';
import { BadRequest, FieldErrors, NotFound, ServiceUnavailable } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';
import type { Gateway } from '../gateways/gateway.entity';
import { GatewaysService } from '../gateways/gateways.service';
import { isRouter, routerSettings } from '../routing/router-settings';
import { isPayable, isSavingPaymentType } from '../transactions/transaction-state';
import type { Transaction } from '../transactions/transaction.entity';
import { TransactionsService } from '../transactions/transactions.service';
import {
  isRedirectDriver,
  UnverifiedNotification,
  type CustomerDestination,
  type DriverSettingsValues,
  type NotificationReply,
  type ProviderNotification,
  type ProviderData,
  type RedirectDriver,
  type RedirectUrls,
  type SaveCardRequest,
} from './adapters/gateway-adapter';
import { GatewayAdapters } from './adapters/gateway-adapters';
import { AttemptSettlement } from './attempt-settlement';
import { GatewayRouting } from './gateway-routing';
import type { AttemptCard, PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository } from './payment-attempts.repository';
import { AttemptRefused, isSessionAttempt, notPayable, PaymentsService } from './payments.service';
import { providerDeadline } from './provider-budget';
import { ANSWER_REUSE_MS, ProviderQuestions } from './provider-questions';
import { attemptUrls, RETURN_CANCEL_PARAM, RETURN_REFERENCE_PARAM } from './provider-urls';

/** Where the customer goes after their return (contract §9, §20). */
export type ReturnOutcome =
  /** Settled (or settled before): on to redirect_url or the result page. */
  | { kind: 'settled'; transaction: Transaction; referenceNumber: string }
  /** Nothing was paid (canceled on the provider's page, session over): still payable. */
  | { kind: 'payable'; transaction: Transaction }
  /** The provider has not confirmed yet: the "being confirmed" page, which reloads itself. */
  | { kind: 'confirming'; transaction: Transaction; referenceNumber: string };

/**
 * Where a started attempt's customer goes, rebuilt from what its driver stored (contract §20): the
 * provider's page (`url`, a 303), or our page loading the provider's script (`script_url` and
 * `session_id`, MPGS). Null when the stored data names neither, or when the driver said the
 * session is not to be handed out again after `resume_until` (it may have expired at the provider).
 */
export function storedDestination(
  provider: ProviderData,
  now: Date = new Date(),
): CustomerDestination | null {
  const until = provider.resume_until ? Date.parse(provider.resume_until) : Number.POSITIVE_INFINITY;
  if (!(until > now.getTime())) return null;
  if (provider.url) return { kind: 'redirect', url: provider.url };
  if (provider.script_url && provider.session_id)
    return { kind: 'script_page', scriptUrl: provider.script_url, sessionId: provider.session_id };
  return null;
}

/**
 * The card of a redirect attempt that saves, as claimed: the customer types it on the provider's
 * page, so only the choice to save is known; the provider's outcome describes the card when the
 * answer is stored (AttemptSettlement.conclude).
 */
const CARD_TO_BE_DESCRIBED: AttemptCard = {
  brand: '',
  last4: '',
  expiryMonth: 0,
  expiryYear: 0,
  nameOnCard: '',
  save: true,
};

/**
 * How long a notification whose provider waits for a particular reply (KNET) waits for its settling
 * before it answers; the settling goes on behind the answer.
 */
const REPLY_WAIT_MS = 1000;

/** How long a pick waits for the provider to say whether a session to resume is still open. */
const RESUME_CHECK_MS = 3000;

/** A short digest of a return's parameters, in a stable order (a cache key part). */
function paramsDigest(params: Record<string, string>): string {
  const sorted = Object.keys(params)
    .sort()
    .map((key) => [key, params[key]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url').slice(0, 16);
}

/**
 * How long a routing gateway's start on one route may take when another route could follow: half
 * of what is left of the pick's deadline, so a route that hangs leaves the next one time to start
 * (contract §21: the whole choice answers within §17's 10 s). The last route takes what is left.
 */
function routeDeadline(deadline: number, last: boolean, now: number = Date.now()): number {
  return last ? deadline : now + Math.max(0, Math.floor((deadline - now) / 2));
}

/** What one pick of a redirect gateway works with. */
interface Pick {
  gateway: Gateway;
  driver: RedirectDriver;
  settings: DriverSettingsValues;
  /** The shared deadline of the pick's provider calls (epoch ms). */
  deadline: number;
}

/** The pick for an attempt's gateway code, or null when this pick does not cover that gateway. */
type PickOf = (code: string) => Promise<Pick | null>;

/**
 * Payments through a provider's own page (contract §20, flow `redirect`), on the durable attempt of
 * contract §17:
 *
 * 1. {@link start}: the transaction is claimed and the attempt written with its reference (the
 *    provider's order id / idempotency key) before the provider is called; the provider's session
 *    is stored before the customer is sent to it;
 * 2. the customer's return ({@link returned}) and the provider's notifications ({@link notified})
 *    each learn the outcome from the provider's own record, verified; the answer is stored, then
 *    settled once ({@link AttemptSettlement.conclude}), whichever arrives first;
 * 3. an attempt neither finishes is the reconciler's (contract §17): it asks the provider.
 *
 * While the customer is on the provider's page the attempt holds the transaction (docs/decisions.md).
 */
@Injectable()
export class RedirectPayments implements OnModuleDestroy {
  private readonly logger = new Logger('Payments');
  /** Notifications' follow-up questions waiting for the answer reuse to pass, by reference. */
  private readonly followUps = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly payments: PaymentsService,
    private readonly settlement: AttemptSettlement,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly adapters: GatewayAdapters,
    private readonly gateways: GatewaysService,
    private readonly transactions: TransactionsService,
    private readonly config: AppConfig,
    private readonly cards: CardsRepository,
    private readonly questions: ProviderQuestions,
    private readonly routing: GatewayRouting,
  ) {}

  /** Whether the gateway's driver sends the customer to the provider's page. */
  isRedirectGateway(gateway: Gateway): boolean {
    const driver = this.adapters.for(gateway);
    return driver !== null && isRedirectDriver(driver);
  }

  /** The origins of the gateway's payment page (for the CSP of a page whose form leads there). */
  async pageOrigins(gateway: Gateway): Promise<string[]> {
    if (isRouter(gateway)) {
      // Any route may take the payment: the page may lead to each of their providers.
      const members = await this.gateways.findByCodes(
        routerSettings(gateway.settings).routes.map((r) => r.gateway),
      );
      const origins = await Promise.all(members.filter((m) => !isRouter(m)).map((m) => this.pageOrigins(m)));
      return [...new Set(origins.flat())];
    }
    const bound = await this.adapters.bind(gateway);
    if (!bound || !isRedirectDriver(bound.driver) || !bound.driver.pageOrigins) return [];
    return bound.driver.pageOrigins({ gateway, settings: bound.settings });
  }

  /**
   * The customer picked a redirect gateway: where to send them (contract §20, §20.1). Their own
   * earlier attempt on this gateway whose provider session is still open is resumed (they go back to
   * it); every other earlier attempt of theirs is ended where the provider can end it, or left
   * watched where it cannot ({@link setAside}) — never a 409 for a customer who wants to pay. Then a
   * new attempt is claimed and the provider's session created. All provider calls of the pick share
   * one deadline inside contract §17's 10 s. Throws AttemptRefused (not payable, a saved-card charge
   * in flight), or ServiceUnavailable when the provider does not answer (the new attempt is then
   * released: the customer never got the session, nothing can be paid on it).
   * `saveCard`: the customer ticked "save this card" on our page before being sent on; the
   * transaction's `payment_type` may require it anyway (contract §15).
   */
  async start(sessionId: string, pgCode: string, saveCard = false): Promise<CustomerDestination> {
    const deadline = providerDeadline();
    const { transaction: opened, gateway } = await this.payments.open(sessionId, pgCode);
    if (isRouter(gateway)) return this.routedStart(opened, gateway, saveCard, deadline);
    const bound = await this.adapters.bind(gateway);
    if (!bound || !isRedirectDriver(bound.driver)) throw new NotFound();
    const pick: Pick = { gateway, driver: bound.driver, settings: bound.settings, deadline };
    if (!isPayable(opened.state)) throw notPayable(opened);
    const save = await this.saveRequest(opened, gateway, saveCard);
    const picks: PickOf = (code) => Promise.resolve(code === gateway.code ? pick : null);
    const resumed = await this.resumeOrSetAside(opened, picks, save !== null, deadline);
    if (resumed) return resumed;
    const started = await this.startOn(opened, pick, picks, save, deadline);
    if (started.kind === 'not_started') throw new ServiceUnavailable();
    return started.destination;
  }

  /**
   * The customer picked a routing gateway (contract §21): their open session on any of its routes
   * is resumed as on any gateway; otherwise the payment starts on the first route of the router's
   * plan that takes it. A route whose start fails before the customer reached its provider (no
   * money can have moved: the attempt is released) is recorded `unavailable` and the next route is
   * started at once, within the pick's shared deadline; a route whose circuit is open is skipped
   * unless every route's is. Nothing else fails over: a claim refused, a save refused, an outcome
   * that may have taken money are answered as on any gateway.
   */
  private async routedStart(
    opened: Transaction,
    router: Gateway,
    saveCard: boolean,
    deadline: number,
  ): Promise<CustomerDestination> {
    if (!isPayable(opened.state)) throw notPayable(opened);
    // The router's own rules first (a customer, a tokenizing router): the same 400s as any gateway.
    const saving = (await this.saveRequest(opened, router, saveCard)) !== null;
    const routes = routerSettings(router.settings).routes.map((route) => route.gateway);
    const known = new Map<string, Promise<Pick | null>>();
    const picks: PickOf = (code) => {
      if (!routes.includes(code)) return Promise.resolve(null);
      if (!known.has(code)) known.set(code, this.memberPick(code, opened, deadline));
      return known.get(code)!;
    };
    const resumed = await this.resumeOrSetAside(opened, picks, saving, deadline);
    if (resumed) return resumed;

    const plan = await this.routing.plan(router);
    const anyUsable = plan.routes.some((route) => route.state !== 'open');
    let tried = 0;
    for (const [i, route] of plan.routes.entries()) {
      if (tried > 0 && !plan.settings.failover) break;
      // Every route unhealthy: the first is tried anyway (never a refusal without trying).
      const forced = !anyUsable && i === 0;
      if (!forced && route.state === 'open') {
        await this.routing.skipped(plan, route.gateway, opened.id);
        continue;
      }
      if (!forced && route.state === 'trial' && !(await this.routing.takeTrial(plan, route.gateway))) {
        await this.routing.skipped(plan, route.gateway, opened.id);
        continue;
      }
      tried++;
      const pick = await picks(route.gateway);
      if (!pick) {
        // Deleted, deactivated or no longer taking the currency since the router was saved.
        await this.routing.unavailable(plan, route.gateway, opened.id, null);
        continue;
      }
      const save = saving ? await this.saveRequest(opened, pick.gateway, true) : null;
      const last = i === plan.routes.length - 1 || !plan.settings.failover;
      const started = await this.startOn(opened, pick, picks, save, routeDeadline(deadline, last));
      // Another pick of this transaction started a session meanwhile: the customer goes there.
      if (started.kind === 'resumed') return started.destination;
      if (started.kind === 'started') {
        await this.routing.started(plan, route.gateway, opened.id, started.referenceNumber);
        return started.destination;
      }
      await this.routing.unavailable(plan, route.gateway, opened.id, started.referenceNumber);
      if (Date.now() >= deadline) break;
    }
    throw new ServiceUnavailable();
  }

  /** A routing gateway's member as a pick: active, taking the transaction's currency, with a redirect driver. */
  private async memberPick(code: string, tx: Transaction, deadline: number): Promise<Pick | null> {
    const gateway = await this.gateways.findByCode(code);
    if (!gateway || !gateway.isActive || isRouter(gateway) || !gateway.currencies.includes(tx.currencyCode))
      return null;
    const bound = await this.adapters.bind(gateway).catch((error: unknown) => {
      this.logger.warn({ err: error, gateway: code }, 'A routed gateway cannot be used now');
      return null;
    });
    if (!bound || !isRedirectDriver(bound.driver)) return null;
    return { gateway, driver: bound.driver, settings: bound.settings, deadline };
  }

  /**
   * Claims the transaction for a new attempt on `pick`'s gateway and creates the provider's session:
   * the customer's destination, or `not_started` when the provider did not start it (the attempt is
   * released: the customer never got the session, nothing can be paid on it). `startDeadline` bounds
   * the provider's call (a routing gateway keeps time for its next route).
   */
  private async startOn(
    opened: Transaction,
    pick: Pick,
    picks: PickOf,
    save: SaveCardRequest | null,
    startDeadline: number,
  ): Promise<
    | { kind: 'started'; destination: CustomerDestination; referenceNumber: string }
    | { kind: 'resumed'; destination: CustomerDestination }
    | { kind: 'not_started'; referenceNumber: string }
  > {
    const { gateway, deadline } = pick;
    let claimed;
    try {
      claimed = await this.payments.claim(
        opened,
        save ? CARD_TO_BE_DESCRIBED : null,
        async (holder) => (await this.resumable(holder, picks, save !== null)) !== null,
        deadline,
        gateway.code,
      );
    } catch (error) {
      // Another pick of this gateway claimed it at the same moment (a second replica, a double
      // click): the customer goes to that attempt's session, never to a second one.
      if (!(error instanceof AttemptRefused)) throw error;
      const same = await this.resumeHolder(error.transaction, picks, save !== null);
      if (same) return { kind: 'resumed', destination: same };
      throw error;
    }
    const { attempt, transaction } = claimed;
    let started;
    try {
      started = await pick.driver.start({
        gateway,
        settings: pick.settings,
        deadline: Math.min(deadline, startDeadline),
        referenceNumber: attempt.referenceNumber,
        amount: attempt.amount,
        currencyCode: attempt.currencyCode,
        operation: transaction.operation,
        description: transaction.orderNo ? `Order ${transaction.orderNo}` : gateway.name,
        expiresAt: transaction.expiresAt,
        ...this.urls(gateway.code, attempt.referenceNumber),
        ...(save ? { saveCard: save } : {}),
      });
    } catch (error) {
      this.logger.error(
        { err: error, driver: pick.driver.name, gateway: gateway.code },
        'The provider did not start a payment',
      );
      await this.settlement.release(attempt);
      return { kind: 'not_started', referenceNumber: attempt.referenceNumber };
    }
    await this.attempts.storeProvider(attempt.referenceNumber, started.provider);
    return { kind: 'started', destination: started.destination, referenceNumber: attempt.referenceNumber };
  }

  /**
   * The customer's earlier attempts on this transaction, before a new one (contract §20.1): the
   * newest on this gateway whose session is open goes on (held again if it had been left); the one
   * holding the transaction is otherwise set aside; left ones are ended where the provider can end
   * them (so an old session cannot take a second payment), and stay watched where it cannot.
   * A saved-card charge in flight is not touched: the claim waits for it (a second charge → 409).
   */
  private async resumeOrSetAside(
    tx: Transaction,
    picks: PickOf,
    save: boolean,
    deadline: number,
  ): Promise<CustomerDestination | null> {
    for (const attempt of await this.attempts.listUnsettled(tx.id)) {
      const holding = tx.attemptInFlight === attempt.referenceNumber;
      if ((!holding && attempt.leftAt === null) || !isSessionAttempt(attempt)) continue;
      const destination = await this.resumable(attempt, picks, save);
      if (destination && (holding || (await this.payments.resumeLeft(tx, attempt)))) return destination;
      if (holding) await this.setAside(attempt, deadline);
      else await this.endLeft(attempt, deadline);
    }
    return null;
  }

  /**
   * Ends the session of the attempt holding the transaction so the customer can start again: the
   * provider ends it (Stripe) and its record decides, or the attempt is left watched — also when the
   * provider cannot be asked now: leaving decides nothing about the money, so it is always safe.
   */
  private async setAside(attempt: PaymentAttempt, deadline: number): Promise<void> {
    const ended = await this.settlement.abandon(attempt, { deadline }).catch((error: unknown) => {
      this.logger.warn(
        { err: error, referenceNumber: attempt.referenceNumber },
        'Could not end a provider session; the customer starts again and it stays watched',
      );
      return 'unknown' as const;
    });
    if (ended === 'unknown') await this.settlement.leave(attempt);
  }

  /** A left attempt whose session is not resumed: ended at the provider where it can be (best effort). */
  private async endLeft(attempt: PaymentAttempt, deadline: number): Promise<void> {
    await this.settlement.abandon(attempt, { deadline }).catch((error: unknown) => {
      this.logger.warn(
        { err: error, referenceNumber: attempt.referenceNumber },
        'Could not end a left provider session; it stays watched',
      );
    });
  }

  /**
   * Whether the card typed on the provider's page is to be saved (contract §15): asked by the
   * customer or by the transaction's `payment_type`, for its customer, on a tokenizable gateway (400
   * under `save_card` otherwise, as on the card form); with the customer's cards on this gateway,
   * whose tokens let the provider reuse its own customer record.
   */
  private async saveRequest(
    tx: Transaction,
    gateway: Gateway,
    asked: boolean,
  ): Promise<SaveCardRequest | null> {
    if (!asked && !isSavingPaymentType(tx.paymentType)) return null;
    if (!tx.customerId) {
      throw new FieldErrors({
        save_card: ['A card can only be saved for a transaction with a customer_id.'],
      });
    }
    if (!gateway.tokenizable)
      throw new FieldErrors({ save_card: [`Gateway "${gateway.code}" cannot save cards.`] });
    const cards = await this.cards.list(tx.customerId, [gateway.code]);
    return {
      customerId: tx.customerId,
      savedTokens: cards.map((card) => card.gatewayToken),
      ...(tx.paymentType === 'auto_debit' && tx.agreement
        ? { agreement: { id: tx.agreement.id, type: tx.agreement.type } }
        : {}),
    };
  }

  /** Our return, cancel and notify URLs for an attempt (contract §20), on PUBLIC_BASE_URL. */
  urls(code: string, referenceNumber: string): RedirectUrls {
    return attemptUrls(this.config.publicBaseUrl, code, referenceNumber);
  }

  /**
   * The customer is back from the provider's page (contract §20, §20.1): the outcome is confirmed
   * with the provider, server to server (single flight, answers reused a few seconds: anyone can load
   * this URL); what the browser brings only names the attempt. A cancel, or a return without payment
   * while the provider's session may still take it, leaves the attempt watched and the transaction
   * payable: the customer may start again.
   */
  async returned(code: string, params: Record<string, string>): Promise<ReturnOutcome> {
    const deadline = providerDeadline();
    const attempt = await this.attempts.findByReference(await this.returnReference(code, params));
    if (!attempt || attempt.pgCode !== code) throw new NotFound();
    const canceled = params[RETURN_CANCEL_PARAM] === '1';
    // A left attempt is asked too (its session may have taken the payment since), unless this is
    // one more cancel of it.
    if (attempt.settledAt === null && !(canceled && attempt.leftAt !== null)) {
      try {
        await this.completeOnReturn(attempt, params, canceled, deadline);
      } catch (error) {
        this.logger.warn(
          { err: error, referenceNumber: attempt.referenceNumber },
          'The provider did not confirm a returning customer’s payment in time',
        );
      }
    }
    const stored = (await this.attempts.findByReference(attempt.referenceNumber)) ?? attempt;
    const transaction = await this.transactions.get((await this.transactionOf(stored)).sessionId);
    if (stored.settledAt === null) {
      if (stored.leftAt !== null && isPayable(transaction.state) && !transaction.attemptInFlight)
        return { kind: 'payable', transaction };
      return { kind: 'confirming', transaction, referenceNumber: stored.referenceNumber };
    }
    // Canceled on the provider's page, or never paid there: the customer may pay again.
    if (
      isPayable(transaction.state) &&
      !transaction.attemptInFlight &&
      (canceled || stored.result === 'error')
    )
      return { kind: 'payable', transaction };
    return { kind: 'settled', transaction, referenceNumber: stored.referenceNumber };
  }

  /**
   * A provider's notification (contract §20): verified first (400 when it is not, nothing changes),
   * then settled once however often and in whatever order it comes. Returns the answer the provider
   * expects, when its driver names one (KNET's `REDIRECT=` line); undefined for the default.
   */
  async notified(
    code: string,
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<NotificationReply | undefined> {
    const gateway = await this.gateways.findByCode(code);
    const bound = gateway ? await this.adapters.bind(gateway) : null;
    if (!gateway || !bound || !isRedirectDriver(bound.driver)) throw new NotFound();
    let notice;
    try {
      const returnUrl = this.urls(code, '').returnUrl.split('?')[0];
      notice = await bound.driver.notification({
        gateway,
        settings: bound.settings,
        rawBody,
        headers,
        returnUrl,
      });
    } catch (error) {
      if (error instanceof UnverifiedNotification) {
        this.logger.warn(
          { gateway: code, reason: error.message },
          'Refused an unverified provider notification',
        );
        throw new BadRequest('The notification could not be verified.');
      }
      throw error;
    }
    if (notice.kind === 'ignore') return notice.reply;
    const attempt = await this.attempts.findByReference(notice.referenceNumber);
    if (!attempt || attempt.pgCode !== code) {
      this.logger.warn(
        { gateway: code, referenceNumber: notice.referenceNumber },
        'A notification for no attempt of this gateway',
      );
      return notice.reply;
    }
    // Recorded and answered whatever the provider says when asked: a call that fails now is the
    // reconciler's to repeat, and the provider must get its answer (KNET reverses a payment without).
    const settling = this.settleNotice(attempt, notice).catch((error: unknown) => {
      this.logger.warn(
        { err: error, gateway: code, referenceNumber: attempt.referenceNumber },
        'A verified notification could not be settled now; the reconciler asks again',
      );
    });
    // A provider that waits for a particular reply (KNET's `REDIRECT=`) reverses the payment when it
    // comes late (K-064 §9.2.1): it gets it within a moment, and the settling goes on behind it.
    if (notice.reply) await Promise.race([settling, sleep(REPLY_WAIT_MS, undefined, { ref: false })]);
    else await settling;
    return notice.reply;
  }

  /** What a verified notification makes of its attempt: asked about, or settled from its outcome. */
  private async settleNotice(
    attempt: PaymentAttempt,
    notice: Exclude<ProviderNotification, { kind: 'ignore' }>,
  ): Promise<void> {
    if (notice.kind === 'ask') {
      if (notice.provider) await this.attempts.storeProvider(attempt.referenceNumber, notice.provider);
      await this.askAbout(attempt.referenceNumber);
    } else if (attempt.card?.save && notice.outcome.result === 'success' && !notice.outcome.card) {
      // A notification names the payment, not the card it saves: the provider is asked with what
      // the attempt keeps of its session, as inquiry does, so the card is saved with the payment.
      await this.askAbout(attempt.referenceNumber);
    } else {
      await this.settlement.conclude(attempt, notice.outcome, false);
    }
  }

  /**
   * Asks the provider about an unsettled attempt, through the single flight (a notification). A
   * notification says something changed, but the answer reused may be older than the change: when
   * it decides nothing, the provider is asked once more after the reuse window, so the news is
   * acted on within seconds while a flood of notifications still makes one call per window.
   */
  private async askAbout(referenceNumber: string): Promise<void> {
    const attempt = await this.attempts.findByReference(referenceNumber);
    if (!attempt || attempt.settledAt !== null) return;
    const result = await this.settlement.finish(attempt, {
      mayRelease: false,
      shared: true,
      deadline: providerDeadline(),
    });
    if (result === 'unknown' || result === 'watched') this.askAgainSoon(referenceNumber);
  }

  /** One more {@link askAbout} once the answer just reused has expired (at most one pending per attempt). */
  private askAgainSoon(referenceNumber: string): void {
    if (this.stopped || this.followUps.has(referenceNumber)) return;
    const timer = setTimeout(() => {
      this.followUps.delete(referenceNumber);
      if (this.stopped) return;
      this.attempts
        .findByReference(referenceNumber)
        .then((attempt) =>
          attempt && attempt.settledAt === null
            ? this.settlement.finish(attempt, {
                mayRelease: false,
                shared: true,
                deadline: providerDeadline(),
              })
            : null,
        )
        .catch((error: unknown) =>
          this.logger.warn({ err: error, referenceNumber }, 'A notification’s follow-up question failed'),
        );
    }, ANSWER_REUSE_MS + 100);
    timer.unref();
    this.followUps.set(referenceNumber, timer);
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const timer of this.followUps.values()) clearTimeout(timer);
    this.followUps.clear();
  }

  /**
   * The attempt a return names: our `ref` parameter, or, for a provider that refuses query strings
   * in its return URL (KNET), what its driver reads from the provider's own parameters.
   */
  private async returnReference(code: string, params: Record<string, string>): Promise<string> {
    const ours = params[RETURN_REFERENCE_PARAM];
    if (ours) return ours;
    const gateway = await this.gateways.findByCode(code);
    const bound = gateway ? await this.adapters.bind(gateway) : null;
    if (!gateway || !bound || !isRedirectDriver(bound.driver) || !bound.driver.returnReference) return '';
    return (await bound.driver.returnReference({ gateway, settings: bound.settings }, params)) ?? '';
  }

  /** The session of the attempt holding `tx`, when {@link resumable}. */
  private async resumeHolder(
    tx: Transaction,
    picks: PickOf,
    save: boolean,
  ): Promise<CustomerDestination | null> {
    if (!tx.attemptInFlight) return null;
    const holder = await this.attempts.findByReference(tx.attemptInFlight);
    return holder ? this.resumable(holder, picks, save) : null;
  }

  /**
   * Where to send the customer back to for `attempt`'s session, when it is a pending attempt on this
   * gateway whose stored session may be handed out again, that saves the card exactly when this pick
   * does, and that its provider says is still open (or only declined while its page lets the payer
   * retry). When the provider cannot be asked in time, the stored session is handed out anyway: the
   * provider's own page is what takes (or refuses) the payment on it, and no second session is made.
   */
  private async resumable(
    attempt: PaymentAttempt,
    picks: PickOf,
    save: boolean,
  ): Promise<CustomerDestination | null> {
    const destination = attempt.provider ? storedDestination(attempt.provider) : null;
    if (attempt.result !== 'pending' || !destination) return null;
    const pick = await picks(attempt.pgCode);
    if (!pick) return null;
    if ((attempt.card?.save ?? false) !== save) return null;
    let known;
    try {
      known = await this.settlement.ask(
        { driver: pick.driver, settings: pick.settings, gateway: pick.gateway },
        attempt,
        await this.transactionOf(attempt),
        { shared: true, deadline: Math.min(pick.deadline, Date.now() + RESUME_CHECK_MS) },
      );
    } catch (error) {
      this.logger.warn(
        { err: error, referenceNumber: attempt.referenceNumber },
        'The provider did not say whether a session is still open; the customer goes back to it',
      );
      return destination;
    }
    if (known === 'open' || (known !== null && known.payerMayRetry && known.result !== 'success'))
      return destination;
    // Paid, declined or over meanwhile: settled now, so the customer sees it.
    await this.settlement.conclude(attempt, known, false);
    return null;
  }

  /** Completes (or, canceled, abandons) an unsettled attempt from the provider's record. */
  private async completeOnReturn(
    attempt: PaymentAttempt,
    params: Record<string, string>,
    canceled: boolean,
    deadline: number,
  ): Promise<void> {
    if (attempt.result !== 'pending') {
      await this.settlement.finish(attempt);
      return;
    }
    if (!isSessionAttempt(attempt)) {
      // A saved-card charge whose answer was lost: asked as the reconciler would (contract §20.1).
      await this.settlement.finish(attempt, { mayRelease: false, shared: true, deadline });
      return;
    }
    if (canceled) {
      await this.settlement.abandon(attempt, { deadline });
      return;
    }
    const bound = await this.settlement.driverOf(attempt);
    if (!bound || !isRedirectDriver(bound.driver)) return;
    const driver = bound.driver;
    // Keyed by what the browser brought too (a new resultIndicator is a new return), within the
    // per-attempt bound of ProviderQuestions.
    const known = await this.questions.ask(
      `complete-${paramsDigest(params)}:${attempt.referenceNumber}`,
      () =>
        driver.complete({
          gateway: bound.gateway,
          settings: bound.settings,
          deadline,
          referenceNumber: attempt.referenceNumber,
          provider: attempt.provider,
          params,
        }),
      deadline,
    );
    if (known === 'left') await this.settlement.leave(attempt);
    else await this.settlement.conclude(attempt, known, false);
  }

  private async transactionOf(attempt: PaymentAttempt): Promise<Transaction> {
    const tx = await this.transactions.findById(attempt.transactionId);
    if (!tx) throw new NotFound();
    return tx;
  }
}
