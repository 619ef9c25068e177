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
import { savedCardAsksCvc } from '../gateways/gateway-drivers';
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
  type InquiryAnswer,
  type ProviderCard,
  type ProviderOutcome,
} from './adapters/gateway-adapter';
import { GatewayAdapters, type BoundDriver } from './adapters/gateway-adapters';
import { gatewayResponse, responseMessage } from './gateway-response';
import type { AttemptCard, PaymentAttempt } from './payment-attempt.entity';
import {
  PaymentAttemptsRepository,
  type UnsettledCursor,
  type StoredAnswer,
} from './payment-attempts.repository';

/** An answered attempt whose request has not settled it after this long is settled by the reconciler. */
const SETTLE_GRACE_MS = 10_000;
const RECONCILE_BATCH = 100;

export type FinishResult = 'settled' | 'released' | 'unknown';

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
  ) {}

  /**
   * Step 4 of an attempt (see PaymentsService): applies its stored answer. In one unit of work: the
   * transition (paid, authorized, failed or error), which only the attempt holding the transaction
   * can make and which frees it; the attempt's `settled_at`; the card saved (contract §15); the
   * event, carrying that card. Idempotent: once settled, a repeat changes nothing and returns the
   * transaction as it is.
   */
  async settle(
    attempt: PaymentAttempt,
    answer: StoredAnswer,
    operation: GatewayOperation,
  ): Promise<Transaction> {
    const target = await this.transactionOf(attempt);
    const trigger = triggerFor(answer, operation);
    const details: EventDetails = {
      referenceNumber: attempt.referenceNumber,
      result: answer.result === 'declined' ? 'failed' : answer.result,
      message: responseMessage(answer),
      gatewayResponse: gatewayResponse(answer, attempt.referenceNumber, attempt.pgCode),
    };
    const settled = await this.uow.run(async (manager) => {
      const change = await this.transitions.change(manager, target, {
        trigger,
        settles: attempt.referenceNumber,
        amounts: trigger === 'attempt_paid' ? { paidAmount: attempt.amount } : undefined,
      });
      if (!change) return null;
      await this.attempts.markSettled(attempt.referenceNumber, manager);
      // Saved before the event, which carries it (the webhook's `token`).
      const card = await this.cardOf(attempt, answer, change.transaction, manager);
      const asksCvc = card ? savedCardAsksCvc(await this.gateways.lookup(card.pgCode, manager)) : false;
      await this.transitions.record(
        manager,
        change,
        card ? { ...details, card: toCardDto(card, asksCvc) } : details,
      );
      return change.transaction;
    });
    if (settled) return settled;
    const now = (await this.transactions.findById(target.id)) ?? target;
    if (now.attemptInFlight !== attempt.referenceNumber)
      await this.reportIfNeverSettled(attempt, now, answer);
    return now;
  }

  /**
   * An attempt that no longer holds its transaction was settled already (by the request or another
   * replica's reconciler), or given up as never charged while the gateway was still working on it:
   * the latter needs a person.
   */
  private async reportIfNeverSettled(
    attempt: PaymentAttempt,
    tx: Transaction,
    answer: StoredAnswer,
  ): Promise<void> {
    const stored = await this.attempts.findByReference(attempt.referenceNumber);
    if (stored && stored.settledAt === null) {
      this.logger.error(
        { referenceNumber: attempt.referenceNumber, sessionId: tx.sessionId, result: answer.result },
        'A gateway answer arrived for an attempt that no longer holds its transaction',
      );
    }
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
    if (card.savedCardToken) return this.cards.findByToken(card.savedCardToken, manager);
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
      : age > SETTLE_GRACE_MS;
  }

  /**
   * Finishes an unsettled attempt: settles it from its stored answer, or asks the gateway first
   * (and stores what it says). `unknown` when the gateway cannot be asked now. An attempt the
   * gateway has no record of is released only with `mayRelease` (an overdue one): a young one may
   * still be on its way to the gateway.
   */
  async finish(attempt: PaymentAttempt, mayRelease = true): Promise<FinishResult> {
    const tx = await this.transactionOf(attempt);
    if (attempt.result !== 'pending') {
      await this.settle(attempt, storedAnswerOf(attempt), tx.operation);
      return 'settled';
    }
    const bound = await this.driverOf(attempt);
    if (!bound) return 'unknown';
    const known = await bound.driver.inquire({
      gateway: bound.gateway,
      settings: bound.settings,
      referenceNumber: attempt.referenceNumber,
      provider: attempt.provider,
      background: true,
    });
    return this.conclude(attempt, known, mayRelease);
  }

  /**
   * Finishes an attempt from what its provider says now (inquiry, the customer's return, a
   * notification, an abandoned session): `'open'` leaves it holding the transaction; `null`
   * releases it (with `mayRelease`); an outcome is checked against the attempt's amount and
   * currency, stored, then settled — once, whichever of these arrives first (contract §20).
   */
  async conclude(attempt: PaymentAttempt, known: InquiryAnswer, mayRelease = true): Promise<FinishResult> {
    if (known === 'open') return 'unknown';
    if (known === null) {
      if (!mayRelease) return 'unknown';
      await this.release(attempt);
      return 'released';
    }
    if (!this.matchesAttempt(attempt, known)) return 'unknown';
    const { amount: _amount, currencyCode: _currency, provider, card, ...answer } = known;
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
      return 'unknown';
    }
    if (stored.settledAt !== null) return 'settled';
    const tx = await this.transactionOf(stored);
    await this.settle(stored, storedAnswerOf(stored), tx.operation);
    return 'settled';
  }

  /**
   * Ends a redirect attempt whose customer left the provider's page (canceled there, or picked a
   * payment method again): the provider makes the session unpayable, then its record decides.
   * `unknown` when the provider cannot be asked or the session is still payable.
   */
  async abandon(attempt: PaymentAttempt): Promise<FinishResult> {
    if (attempt.settledAt !== null) return 'settled';
    if (attempt.result !== 'pending') return this.finish(attempt);
    const bound = await this.driverOf(attempt);
    if (!bound || !isRedirectDriver(bound.driver)) return 'unknown';
    const known = await bound.driver.abandon({
      gateway: bound.gateway,
      settings: bound.settings,
      referenceNumber: attempt.referenceNumber,
      provider: attempt.provider,
    });
    return this.conclude(attempt, known);
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
   * Settles the attempt holding a transaction now if its outcome can be known (contract §16 inquiry):
   * from its stored answer, or by asking the gateway. Never releases a young attempt.
   */
  async settleHolder(tx: Transaction): Promise<FinishResult | null> {
    if (!tx.attemptInFlight) return null;
    const attempt = await this.attempts.findByReference(tx.attemptInFlight);
    if (!attempt || attempt.settledAt !== null) return null;
    return this.finish(attempt, this.isOverdue(attempt));
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
    const before = new Date(now.getTime() - SETTLE_GRACE_MS);
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
        return finished === 'unknown' ? 'left' : finished;
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
