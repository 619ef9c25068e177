import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Card } from '../cards/card.entity';
import { CardFingerprints } from '../cards/card-fingerprints';
import { toCardDto } from '../cards/card.view';
import { CardsRepository } from '../cards/cards.repository';
import { AppConfig } from '../config/app-config';
import { UnitOfWork } from '../database/unit-of-work';
import type { EventDetails } from '../transactions/events/event-payload';
import type { GatewayOperation } from '../gateways/gateway.entity';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { GatewaysService } from '../gateways/gateways.service';
import type { Trigger } from '../transactions/state-machine';
import type { Transaction } from '../transactions/transaction.entity';
import { TransactionsService } from '../transactions/transactions.service';
import { TransitionService } from '../transactions/transition.service';
import { reconcilePass } from '../common/jobs/reconcile-pass';
import { Money } from '../common/money/money';
import type { Gateway } from '../gateways/gateway.entity';
import {
  isRedirectDriver,
  ProviderCallFailed,
  type DriverCall,
  type InquiryAnswer,
  type PayInput,
  type ProviderCard,
  type ProviderData,
  type ProviderOutcome,
} from './adapters/gateway-adapter';
import { Metrics } from '../metrics/metrics';
import { isPayable } from '../transactions/transaction-state';
import { ProviderQuestions } from './provider-questions';
import { attemptUrls } from './provider-urls';
import { GatewayAdapters, type BoundDriver } from './adapters/gateway-adapters';
import { gatewayResponse, responseMessage } from './gateway-response';
import type { AttemptCard, PaymentAttempt } from './payment-attempt.entity';
import {
  PaymentAttemptsRepository,
  type UnsettledCursor,
  type StoredAnswer,
} from './payment-attempts.repository';

/**
 * An answered attempt whose request has not settled it after this long (or after
 * `PAYMENT_ATTEMPT_TIMEOUT_SECONDS` if shorter, as for operations) is settled by the reconciler.
 */
const SETTLE_GRACE_MS = 10_000;
const RECONCILE_BATCH = 100;

/**
 * Where an unsettled attempt stands after it was asked about: settled from the provider's final
 * word; released or closed with nothing taken; `watched`: its customer left it, and its provider
 * session may still take the payment (contract §20.1); `unknown`: nothing decided yet.
 */
export type FinishResult = 'settled' | 'released' | 'watched' | 'unknown';

export interface FinishOptions {
  /** A young attempt the provider does not know may still be on its way: released only when set. */
  mayRelease?: boolean;
  /** Someone waits (epoch ms): provider calls share this deadline; absent: a background call. */
  deadline?: number;
  /** Asked for a route anyone can reach: through the single flight and the answer cache. */
  shared?: boolean;
}

/** How long after it was sent a charge may be re-sent under its idempotency key to learn its outcome. */
const CHARGE_REPLAY_MS = 23 * 3600_000;

/**
 * How long a left session is watched when its driver does not say (`payable_until`): an hour, the
 * longest hosted page lifetime among the drivers (docs/gateways/*.md).
 */
const DEFAULT_WATCH_MS = 60 * 60_000;

/** Until when a left provider session may take money: the driver's `payable_until`, or the default. */
export function watchedUntil(provider: ProviderData | null, now: Date): Date {
  const until = Date.parse(provider?.payable_until ?? '');
  return Number.isFinite(until)
    ? new Date(Math.max(until, now.getTime()))
    : new Date(now.getTime() + DEFAULT_WATCH_MS);
}

/**
 * Any failure to get the provider's answer, as the seam's {@link ProviderCallFailed} (contract
 * §20.1: the merchant sees the provider's error, never our 500): a driver's own error answer passes
 * as it is; no answer at all (a timeout, a refused connection, the request's deadline) is retryable.
 */
function asProviderFailure(provider: string, error: unknown): ProviderCallFailed {
  if (error instanceof ProviderCallFailed) return error;
  const failure = new ProviderCallFailed(provider, 'The provider did not answer in time.', {
    status: null,
    code: null,
    retryable: true,
  });
  failure.cause = error;
  return failure;
}

/** A transition that did not apply inside the settling unit (rolled back; see AttemptSettlement.notApplied). */
class NotApplied extends Error {
  constructor() {
    super('The attempt’s answer could not change its transaction');
  }
}

export interface ReconcileResult {
  settled: number;
  released: number;
  /** Left for the next run: the gateway could not be asked, or settling failed. */
  left: number;
}

/**
 * Settles payment attempts (contract §17): from a stored gateway answer to the transaction's new state
 * and its event, exactly once however often it runs; and for attempts left unfinished (a crash,
 * a lost connection, a database that failed after the gateway answered), by asking the gateway.
 */
@Injectable()
export class AttemptSettlement {
  private readonly logger = new Logger('Payments');
  /** Where the reconciler's last run stopped (null: start from the oldest). */
  private reconcileAfter: UnsettledCursor | null = null;

  constructor(
    private readonly transactions: TransactionsService,
    private readonly transitions: TransitionService,
    private readonly gateways: GatewaysService,
    private readonly adapters: GatewayAdapters,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly config: AppConfig,
    private readonly cards: CardsRepository,
    private readonly fingerprints: CardFingerprints,
    private readonly uow: UnitOfWork,
    private readonly questions: ProviderQuestions,
    private readonly metrics: Metrics,
    private readonly drivers: GatewayDrivers,
  ) {}

  /**
   * Step 4 of an attempt (see PaymentsService): applies its stored answer. In one unit of work: the
   * attempt's `settled_at` (conditional, so it is settled once); the transition (paid, authorized,
   * failed or error) — made by the attempt holding the transaction, which frees it, or, for an
   * attempt its customer left (contract §20.1), only while no other attempt holds it; the card saved
   * (contract §15); the event, carrying that card. Idempotent: once settled, a repeat changes nothing
   * and returns the transaction as it is.
   *
   * A left attempt's decline or error only closes it (its customer was let go when they left). A
   * left attempt's success on a transaction that can no longer be paid (paid by another attempt,
   * canceled, expired) is a reconciliation mismatch: money the transaction does not show.
   */
  async settle(
    attempt: PaymentAttempt,
    answer: StoredAnswer,
    operation: GatewayOperation,
  ): Promise<Transaction> {
    const target = await this.transactionOf(attempt);
    const left = attempt.leftAt !== null;
    if (left && answer.result !== 'success') {
      await this.closeLeft(attempt, answer.responseCode || answer.result);
      return (await this.transactions.findById(target.id)) ?? target;
    }
    const trigger = triggerFor(answer, operation);
    const details: EventDetails = {
      referenceNumber: attempt.referenceNumber,
      result: answer.result === 'declined' ? 'failed' : answer.result,
      message: responseMessage(answer),
      gatewayResponse: gatewayResponse(answer, attempt.referenceNumber, attempt.pgCode),
    };
    let settled: Transaction | null;
    try {
      settled = await this.uow.run(async (manager) => {
        if (!(await this.attempts.markSettled(attempt.referenceNumber, manager))) return null;
        const change = await this.transitions.change(manager, target, {
          trigger,
          settles: left ? undefined : attempt.referenceNumber,
          amounts: trigger === 'attempt_paid' ? { paidAmount: attempt.amount } : undefined,
          // The gateway that took it (contract §21: a routing gateway's member): operations go there.
          takenBy: answer.result === 'success' ? attempt.pgCode : undefined,
        });
        if (!change) throw new NotApplied();
        // Saved before the event, which carries it (the webhook's `token`).
        const card = await this.cardOf(attempt, answer, change.transaction, manager);
        const asksCvc = card
          ? this.drivers.savedCardAsksCvc(await this.gateways.lookupIn(manager, card.pgCode))
          : false;
        await this.transitions.record(
          manager,
          change,
          card ? { ...details, card: toCardDto(card, asksCvc) } : details,
        );
        return change.transaction;
      });
    } catch (error) {
      if (!(error instanceof NotApplied)) throw error;
      return this.notApplied(attempt, answer, operation, target);
    }
    return settled ?? (await this.transactions.findById(target.id)) ?? target;
  }

  /**
   * The attempt's answer could not change its transaction: it was left meanwhile (settle it as left),
   * another attempt holds the transaction (the reconciler tries again once that one settles), or the
   * transaction can no longer be paid while the provider took money (a mismatch, for a person).
   */
  private async notApplied(
    attempt: PaymentAttempt,
    answer: StoredAnswer,
    operation: GatewayOperation,
    target: Transaction,
  ): Promise<Transaction> {
    const stored = (await this.attempts.findByReference(attempt.referenceNumber)) ?? attempt;
    const now = (await this.transactions.findById(target.id)) ?? target;
    if (stored.settledAt !== null) return now;
    if (attempt.leftAt === null && stored.leftAt !== null) return this.settle(stored, answer, operation);
    if (now.attemptInFlight !== null && now.attemptInFlight !== attempt.referenceNumber) {
      this.logger.warn(
        { referenceNumber: attempt.referenceNumber, sessionId: now.sessionId, holder: now.attemptInFlight },
        'A provider answer waits for the attempt holding its transaction to settle',
      );
      return now;
    }
    if (answer.result === 'success' && !isPayable(now.state)) {
      if (
        await this.uow.run((manager) =>
          this.attempts.markSettled(attempt.referenceNumber, manager, 'mismatch'),
        )
      )
        this.reportMismatch(stored, now, 'The provider took a payment the transaction can no longer take');
      return now;
    }
    this.logger.error(
      { referenceNumber: attempt.referenceNumber, sessionId: now.sessionId, result: answer.result },
      'A gateway answer could not settle its transaction; it is asked about again',
    );
    return now;
  }

  /**
   * The customer left the attempt while its provider session may still take money (contract §20.1:
   * a cancel or error link, a return without payment, a decline the provider's page lets them retry,
   * or a new pick): the transaction is freed (a decline also makes it `failed`, with its event), the
   * attempt stays unsettled and watched by the reconciler, and the transaction does not expire before
   * the provider's session ends. Nothing is decided about the money: a payment taken on the session
   * later is recorded paid.
   */
  async leave(attempt: PaymentAttempt, decline?: ProviderOutcome): Promise<void> {
    const tx = await this.transactionOf(attempt);
    const until = watchedUntil(attempt.provider, new Date());
    const left = await this.uow.run(async (manager) => {
      if (!(await this.attempts.markLeft(attempt.referenceNumber, manager))) return false;
      const change = decline
        ? await this.transitions.change(manager, tx, {
            trigger: 'attempt_declined',
            settles: attempt.referenceNumber,
          })
        : null;
      if (change && decline) {
        await this.transitions.record(manager, change, {
          referenceNumber: attempt.referenceNumber,
          result: 'failed',
          message: responseMessage({ result: 'declined', responseCode: decline.responseCode }),
          gatewayResponse: gatewayResponse(
            { result: 'declined', responseCode: decline.responseCode },
            attempt.referenceNumber,
            attempt.pgCode,
          ),
        });
      } else {
        await this.transitions.release(manager, tx.id, attempt.referenceNumber);
      }
      await this.transitions.watch(manager, tx.id, until);
      return true;
    });
    if (left) {
      this.logger.log(
        { referenceNumber: attempt.referenceNumber, declined: decline !== undefined, watchedUntil: until },
        'The customer left a provider session that may still take the payment: watching it',
      );
    }
  }

  /** A left attempt whose provider session ended without taking money: closed, nothing changes. */
  private async closeLeft(attempt: PaymentAttempt, responseCode: string): Promise<void> {
    const closed = await this.uow.run((manager) =>
      this.attempts.markClosed(attempt.referenceNumber, manager, responseCode.slice(0, 32)),
    );
    if (closed) {
      this.logger.log(
        { referenceNumber: attempt.referenceNumber },
        'A provider session the customer had left ended without a payment',
      );
    }
  }

  /**
   * A mismatch between the provider's word and the transaction (contract §20.1): counted, and logged
   * as an error with the attempt's reference so a person can refund or correct it.
   */
  private reportMismatch(attempt: PaymentAttempt, tx: Transaction | null, why: string): void {
    this.metrics.reconciliationMismatches.inc({ gateway: attempt.pgCode });
    this.logger.error(
      {
        referenceNumber: attempt.referenceNumber,
        sessionId: tx?.sessionId,
        gateway: attempt.pgCode,
        state: tx?.state,
        amount: `${attempt.amount} ${attempt.currencyCode}`,
      },
      `Reconciliation mismatch: ${why}`,
    );
  }

  /**
   * The card of a settled attempt (contract §15): saved now when the attempt asked to and the gateway
   * tokenized it, or the saved card it charged; null for a one-off payment. A card typed on a
   * provider's page is described by the provider's outcome, kept on the attempt with its answer
   * ({@link withProviderCard}), so the reconciler saves it just as well.
   */
  private async cardOf(
    attempt: PaymentAttempt,
    answer: StoredAnswer,
    tx: Transaction,
    manager: EntityManager,
  ): Promise<Card | null> {
    const card = attempt.card;
    if (!card) return null;
    if (card.savedCardToken) return this.cards.findByTokenIn(manager, card.savedCardToken);
    if (
      !card.save ||
      answer.result !== 'success' ||
      !answer.gatewayToken ||
      !card.fingerprint ||
      !tx.customerId
    ) {
      return null;
    }
    return this.cards.save(manager, {
      customerId: tx.customerId,
      pgCode: attempt.pgCode,
      brand: card.brand,
      nameOnCard: card.nameOnCard,
      last4: card.last4,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
      fingerprint: card.fingerprint,
      gatewayToken: answer.gatewayToken,
      agreementId: tx.paymentType === 'auto_debit' ? (tx.agreement?.id ?? null) : null,
    });
  }

  /**
   * The attempt's card as the provider describes it (contract §15), stored with its answer: brand,
   * last four, expiry and name (never more), whether to save it as decided when the attempt was
   * claimed, and a fingerprint keyed from the provider's fingerprint of the number — or, for a
   * provider that gives none, of its token (a provider that tokenizes a card once gives the same).
   */
  private withProviderCard(
    attempt: PaymentAttempt,
    card: ProviderCard,
    gatewayToken: string | null | undefined,
  ): AttemptCard {
    const seen = card.fingerprint ?? (gatewayToken ? `token:${gatewayToken}` : null);
    return {
      save: attempt.card?.save ?? false,
      brand: card.brand,
      last4: card.last4,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
      nameOnCard: card.nameOnCard,
      ...(seen ? { fingerprint: this.fingerprints.ofProviderCard(attempt.pgCode, seen) } : {}),
    };
  }

  /** Frees the transaction from an attempt the gateway never received (nothing was charged). */
  async release(attempt: PaymentAttempt): Promise<void> {
    await this.uow.run(async (manager) => {
      await this.transitions.release(manager, attempt.transactionId, attempt.referenceNumber);
      await this.attempts.markNeverCharged(attempt.referenceNumber, manager);
    });
    this.logger.warn(
      { referenceNumber: attempt.referenceNumber },
      'Released an attempt the gateway never received',
    );
  }

  /** Whether an unsettled attempt has waited long enough that nobody else will finish it. */
  isOverdue(attempt: PaymentAttempt, now: Date = new Date()): boolean {
    const age = now.getTime() - attempt.createdAt.getTime();
    return attempt.result === 'pending'
      ? age > this.config.paymentAttemptTimeoutSeconds * 1000
      : age > this.settleGraceMs;
  }

  /** See {@link SETTLE_GRACE_MS}. */
  private get settleGraceMs(): number {
    return Math.min(SETTLE_GRACE_MS, this.config.paymentAttemptTimeoutSeconds * 1000);
  }

  /**
   * Finishes an unsettled attempt: settles it from its stored answer, or asks the gateway first
   * (and acts on what it says, {@link conclude}). `unknown` when the gateway cannot be asked now. An
   * attempt the gateway has no record of is released only with `mayRelease` (an overdue one): a young
   * one may still be on its way to the gateway.
   */
  async finish(attempt: PaymentAttempt, options: FinishOptions = {}): Promise<FinishResult> {
    const tx = await this.transactionOf(attempt);
    if (attempt.result !== 'pending') {
      await this.settle(attempt, storedAnswerOf(attempt), tx.operation);
      return this.settledOrNot(attempt);
    }
    const bound = await this.driverOf(attempt);
    if (!bound) return 'unknown';
    const known = await this.ask(bound, attempt, tx, options);
    return this.conclude(attempt, known, options.mayRelease ?? true);
  }

  /**
   * What the provider says of the attempt now ({@link GatewayDriver.inquire}); with `shared`,
   * through the single flight and answer cache of {@link ProviderQuestions} (routes anyone can
   * reach). A saved-card charge carries the charge as first sent, so a provider that deduplicates
   * by key is asked by re-sending it (contract §20.1).
   */
  async ask(
    bound: BoundDriver & { gateway: Gateway },
    attempt: PaymentAttempt,
    tx: Transaction,
    options: FinishOptions = {},
  ): Promise<InquiryAnswer> {
    const payment = await this.chargeOf(attempt, tx);
    const call = () =>
      bound.driver.inquire({
        gateway: bound.gateway,
        settings: bound.settings,
        referenceNumber: attempt.referenceNumber,
        provider: attempt.provider,
        background: options.deadline === undefined,
        ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
        ...(payment ? { payment } : {}),
      });
    const asked = options.shared
      ? this.questions.ask(`inquire:${attempt.referenceNumber}`, call, options.deadline)
      : call();
    return asked.catch((error: unknown) => {
      throw asProviderFailure(bound.driver.name, error);
    });
  }

  /**
   * A saved-card charge as it was first sent (never the CVC, which is not kept): what a driver needs
   * to re-send it under the same idempotency key. Null for other attempts, or when the card is gone.
   */
  private async chargeOf(
    attempt: PaymentAttempt,
    tx: Transaction,
  ): Promise<Omit<PayInput, keyof DriverCall> | null> {
    const token = attempt.card?.savedCardToken;
    if (!token) return null;
    // Providers keep an idempotency key's answer about 24 hours (Stripe): re-sent later, the same
    // charge could be carried out again. An older one is for a person (the driver cannot tell).
    if (Date.now() - attempt.createdAt.getTime() > CHARGE_REPLAY_MS) return null;
    const saved = await this.cards.findByToken(token);
    if (!saved) return null;
    const present = attempt.card?.cardholderPresent === true;
    return {
      referenceNumber: attempt.referenceNumber,
      amount: attempt.amount,
      currencyCode: attempt.currencyCode,
      operation: tx.operation,
      card: { gatewayToken: saved.gatewayToken, ...(present ? { cardholderPresent: true } : {}) },
      saveCard: false,
      ...(!present && tx.agreement ? { agreement: { id: tx.agreement.id, type: tx.agreement.type } } : {}),
      ...(present
        ? {
            returnUrl: attemptUrls(this.config.publicBaseUrl, attempt.pgCode, attempt.referenceNumber)
              .returnUrl,
          }
        : {}),
    };
  }

  /**
   * Acts on what the provider says of an attempt (inquiry, the customer's return, a notification, an
   * ended session), once whichever arrives first (contract §20, §20.1):
   * - `'open'`: nothing yet; the attempt keeps holding its transaction, or stays watched if left;
   * - `null`: nothing taken and nothing can be: a held attempt is released (with `mayRelease`), a
   *   left one closed;
   * - a decline the provider's page lets the payer retry: the attempt is left (the transaction goes
   *   `failed`), still watched;
   * - an outcome: checked against the attempt's amount and currency, stored, then settled. One that
   *   contradicts an answer stored earlier is a mismatch (for a person), never settled over it.
   */
  async conclude(attempt: PaymentAttempt, known: InquiryAnswer, mayRelease = true): Promise<FinishResult> {
    if (known === 'open') return attempt.leftAt !== null ? 'watched' : 'unknown';
    if (known === null) {
      if (attempt.leftAt !== null) {
        await this.closeLeft(attempt, 'session-ended');
        return 'released';
      }
      if (!mayRelease) return 'unknown';
      await this.release(attempt);
      return 'released';
    }
    if (!this.matchesAttempt(attempt, known)) return 'unknown';
    const { amount: _amount, currencyCode: _currency, provider, card, payerMayRetry, ...answer } = known;
    if (payerMayRetry && answer.result !== 'success') {
      if (provider) await this.attempts.storeProvider(attempt.referenceNumber, provider);
      if (attempt.leftAt === null) await this.leave(attempt, known);
      return 'watched';
    }
    await this.attempts.storeAnswer(
      attempt.referenceNumber,
      card ? { ...answer, card: this.withProviderCard(attempt, card, answer.gatewayToken) } : answer,
      provider,
    );
    const stored = (await this.attempts.findByReference(attempt.referenceNumber)) ?? attempt;
    if (stored.result !== answer.result) {
      // Settled from another answer (e.g. released as never charged): a person must look at it.
      this.logger.error(
        { referenceNumber: attempt.referenceNumber, stored: stored.result, provider: answer.result },
        'A provider reports another outcome than the one an attempt was settled with',
      );
      if (
        (answer.result === 'success') !== (stored.result === 'success') &&
        stored.reconciliation !== 'mismatch'
      ) {
        await this.attempts.markMismatch(attempt.referenceNumber);
        this.reportMismatch(
          stored,
          await this.transactions.findById(stored.transactionId),
          'the provider and the attempt disagree about the money',
        );
      }
      return 'unknown';
    }
    if (stored.settledAt !== null) return 'settled';
    const tx = await this.transactionOf(stored);
    await this.settle(stored, storedAnswerOf(stored), tx.operation);
    return this.settledOrNot(stored);
  }

  /** `settled` once the attempt is, else `unknown` (its answer waits for another attempt to settle). */
  private async settledOrNot(attempt: PaymentAttempt): Promise<FinishResult> {
    const now = await this.attempts.findByReference(attempt.referenceNumber);
    return now?.settledAt ? 'settled' : 'unknown';
  }

  /**
   * Ends a redirect attempt whose customer left the provider's page or picked a payment method again
   * (contract §20.1): the provider makes the session unpayable where it can (Stripe expires the
   * Checkout Session), then its record decides. A provider that cannot end its session (`'open'`)
   * leaves the attempt watched: the customer may start again, and a payment taken there later is
   * recorded. `unknown` when the provider cannot be asked; throws what the driver throws.
   */
  async abandon(attempt: PaymentAttempt, options: FinishOptions = {}): Promise<FinishResult> {
    if (attempt.settledAt !== null) return 'settled';
    if (attempt.result !== 'pending') return this.finish(attempt, options);
    const bound = await this.driverOf(attempt);
    if (!bound || !isRedirectDriver(bound.driver)) return 'unknown';
    const driver = bound.driver;
    const known = await this.questions
      .ask(
        `abandon:${attempt.referenceNumber}`,
        () =>
          driver.abandon({
            gateway: bound.gateway,
            settings: bound.settings,
            referenceNumber: attempt.referenceNumber,
            provider: attempt.provider,
            ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
          }),
        options.deadline,
      )
      .finally(() => this.questions.forget(attempt.referenceNumber));
    if (known === 'open') {
      await this.leave(attempt);
      return 'watched';
    }
    return this.conclude(attempt, known, true);
  }

  /** The attempt's gateway, its driver and settings; null when no driver serves it any more. */
  async driverOf(attempt: PaymentAttempt): Promise<(BoundDriver & { gateway: Gateway }) | null> {
    const gateway = await this.gateways.findByCode(attempt.pgCode);
    const bound = gateway ? await this.adapters.bind(gateway) : null;
    return gateway && bound ? { ...bound, gateway } : null;
  }

  /**
   * Whether what the provider charged is what the attempt asked for (contract §20): a payment for
   * another amount or currency is never settled; it is logged and left to inquiry and a person.
   */
  private matchesAttempt(attempt: PaymentAttempt, known: ProviderOutcome): boolean {
    if (known.result !== 'success' || (known.amount === undefined && known.currencyCode === undefined))
      return true;
    const sameCurrency = (known.currencyCode ?? attempt.currencyCode) === attempt.currencyCode;
    const sameAmount = known.amount === undefined || new Money(known.amount).eq(attempt.amount);
    if (sameCurrency && sameAmount) return true;
    this.logger.error(
      {
        referenceNumber: attempt.referenceNumber,
        expected: `${attempt.amount} ${attempt.currencyCode}`,
        provider: `${known.amount ?? '?'} ${known.currencyCode ?? '?'}`,
      },
      'A provider reported a payment for another amount or currency: left unsettled',
    );
    return false;
  }

  /**
   * Settles the transaction's unsettled attempts now where their outcome can be known (contract §16
   * inquiry): the one holding it and those its customer left, from a stored answer or by asking the
   * gateway within `deadline`. Never releases a young attempt. True when one of them moved on.
   */
  async settleOpen(tx: Transaction, deadline?: number): Promise<boolean> {
    let moved = false;
    for (const attempt of await this.attempts.listUnsettled(tx.id)) {
      const options = {
        mayRelease: this.isOverdue(attempt),
        ...(deadline !== undefined ? { deadline } : {}),
      };
      if (attempt.referenceNumber === tx.attemptInFlight) {
        // The provider's failure to answer about the attempt in progress is the merchant's to see.
        if ((await this.finish(attempt, options)) !== 'unknown') moved = true;
        continue;
      }
      // A session its customer left: asked too, but the reconciler keeps asking when it cannot be now.
      const result = await this.finish(attempt, options).catch((error: unknown) => {
        this.logger.warn(
          { err: error, referenceNumber: attempt.referenceNumber },
          'Could not ask about a left session now; the reconciler asks again',
        );
        return 'unknown' as const;
      });
      if (result !== 'unknown' && result !== 'watched') moved = true;
    }
    return moved;
  }

  /**
   * One run of the reconciler: finishes the overdue unsettled attempts of its window, at most
   * `batch` of them. Safe on several replicas at once (settling is conditional; asking a gateway
   * twice changes nothing). The window moves on each run and starts over after the newest, so
   * attempts the provider keeps open (a customer who left a Stripe or MPGS page) cannot starve the
   * ones behind them: every unsettled attempt is looked at within ⌈unsettled ÷ batch⌉ runs.
   */
  async reconcile(now: Date = new Date(), batch = RECONCILE_BATCH): Promise<ReconcileResult> {
    const result: ReconcileResult = { settled: 0, released: 0, left: 0 };
    const before = new Date(now.getTime() - this.settleGraceMs);
    let window = await this.attempts.findUnsettled(before, batch, this.reconcileAfter ?? undefined);
    if (window.length === 0 && this.reconcileAfter) window = await this.attempts.findUnsettled(before, batch);
    const last = window.at(-1);
    this.reconcileAfter = window.length < batch || !last ? null : { createdAt: last.createdAt, id: last.id };
    const due = window.filter((attempt) => this.isOverdue(attempt, now));
    return reconcilePass(
      due,
      result,
      async (attempt) => {
        const finished = await this.finish(attempt);
        return finished === 'unknown' || finished === 'watched' ? 'left' : finished;
      },
      {
        logger: this.logger,
        about: (attempt) => ({ referenceNumber: attempt.referenceNumber }),
        notYet: 'Could not settle an attempt yet',
        finished: 'Settled payment attempts left unfinished',
        progressed: (tally) => tally.settled + tally.released > 0,
      },
    );
  }

  private async transactionOf(attempt: PaymentAttempt): Promise<Transaction> {
    const tx = await this.transactions.findById(attempt.transactionId);
    if (!tx)
      throw new Error(`Transaction ${attempt.transactionId} of attempt ${attempt.referenceNumber} is gone`);
    return tx;
  }
}

export function triggerFor(answer: StoredAnswer, operation: GatewayOperation): Trigger {
  switch (answer.result) {
    case 'success':
      return operation === 'authorize' ? 'attempt_authorized' : 'attempt_paid';
    case 'declined':
      return 'attempt_declined';
    case 'error':
      return 'attempt_error';
  }
}

/** The answer stored on an attempt that has one. */
function storedAnswerOf(attempt: PaymentAttempt): StoredAnswer {
  if (attempt.result === 'pending') throw new Error(`Attempt ${attempt.referenceNumber} has no answer yet`);
  return { result: attempt.result, responseCode: attempt.responseCode, gatewayToken: attempt.gatewayToken };
}
