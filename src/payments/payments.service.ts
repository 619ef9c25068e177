import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BadRequest,
  FieldErrors,
  NotFound,
  PermissionDenied,
  ServiceUnavailable,
  StateConflict,
} from '../common/errors/domain-errors';
import { isSandbox, type Gateway } from '../gateways/gateway.entity';
import { GatewaysService } from '../gateways/gateways.service';
import type { Transaction } from '../transactions/transaction.entity';
import { isPayable, isSavingPaymentType } from '../transactions/transaction-state';
import { TransactionsService } from '../transactions/transactions.service';
import { TransitionService } from '../transactions/transition.service';
import { CardFingerprints } from '../cards/card-fingerprints';
import { isExpired, type NewCard } from '../cards/card-input';
import { CardsRepository } from '../cards/cards.repository';
import type { AttemptOutcome, GatewayAdapter, PayInput } from './adapters/gateway-adapter';
import { GatewayAdapters } from './adapters/gateway-adapters';
import { AttemptSettlement } from './attempt-settlement';
import { PaymentAttempt, type AttemptCard } from './payment-attempt.entity';
import { PaymentAttemptsRepository, type StoredAnswer } from './payment-attempts.repository';

/** How long a second attempt waits for the one in flight to settle before it answers. */
const IN_FLIGHT_WAIT_MS = 3000;
const IN_FLIGHT_POLL_MS = 100;
/** Claim tries when the transaction turns out free right after a refused claim. */
const CLAIM_ROUNDS = 3;

export const ATTEMPT_IN_PROGRESS = 'A payment attempt for this transaction is already in progress.';

/**
 * What the customer pays with: a card typed now (checked by readNewCard; `save` asks to keep it),
 * or one of their saved cards by token (with the CVC the customer typed on the page; none for a
 * merchant-initiated charge).
 */
export type PaymentCard = { card: NewCard; save: boolean } | { savedCardToken: string; cvc?: string };

export interface AttemptRequest {
  /** Never stored or logged beyond what AttemptCard keeps. */
  payWith: PaymentCard;
  /** The payment method the customer chose (payment page URL); must be the transaction's. */
  pgCode?: string;
  /** The test helper runs only against sandbox gateways (contract §9). */
  sandboxOnly?: boolean;
}

export interface AttemptResultView {
  transaction: Transaction;
  referenceNumber: string;
  result: AttemptOutcome['result'];
}

/**
 * An attempt that did not reach the gateway because the transaction could not be claimed: it is
 * not payable, or another attempt holds it. Carries the transaction as it is now, so the customer
 * sees its real state (contract §17).
 */
export class AttemptRefused extends StateConflict {
  constructor(
    message: string,
    readonly transaction: Transaction,
  ) {
    super(message);
  }
}

/**
 * A payment attempt (contract §9), the same for the payment page and the test helper, built so that a
 * gateway outcome is never lost (contract §17):
 *
 * 1. claim: one conditional write makes this the only attempt in flight (payable, before the
 *    deadline, no other attempt), and the attempt row is written with its reference — before the
 *    gateway is called; a second attempt is refused here and sees the real state;
 * 2. ask the gateway (for the amount as stored);
 * 3. store its answer, on its own, at once;
 * 4. settle: the transition and its event, idempotently ({@link AttemptSettlement}).
 *
 * A crash or a database failure after 1 leaves an unsettled attempt that the reconciler finishes
 * by asking the gateway.
 */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger(PaymentsService.name);

  constructor(
    private readonly transactions: TransactionsService,
    private readonly transitions: TransitionService,
    private readonly gateways: GatewaysService,
    private readonly adapters: GatewayAdapters,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly settlement: AttemptSettlement,
    private readonly cards: CardsRepository,
    private readonly fingerprints: CardFingerprints,
  ) {}

  /**
   * The transaction a customer is about to pay, expired first when its deadline has passed while it
   * was still payable (contract §7: the customer then sees `expired`). 404 when unknown, or when
   * `pgCode` is not its payment method.
   */
  async open(sessionId: string, pgCode?: string): Promise<{ transaction: Transaction; gateway: Gateway }> {
    const tx = await this.transactions.get(sessionId);
    if (pgCode !== undefined && pgCode !== tx.pgCode) throw new NotFound();
    const gateway = await this.gateways.findByCode(tx.pgCode);
    if (!gateway) throw new NotFound();
    return { transaction: await this.expiredIfDue(tx), gateway };
  }

  async attempt(sessionId: string, request: AttemptRequest): Promise<AttemptResultView> {
    const { transaction: opened, gateway } = await this.open(sessionId, request.pgCode);
    if (request.sandboxOnly && !isSandbox(gateway)) {
      throw new PermissionDenied('Test helpers only work with gateways of type "sandbox".');
    }
    if (gateway.flow === 'offline') {
      throw new BadRequest(`Gateway "${gateway.code}" takes cash: the merchant acknowledges the payment.`);
    }
    if (!isPayable(opened.state)) throw notPayable(opened);
    const adapter = this.adapters.for(gateway);
    if (!adapter) throw new BadRequest(`Gateway "${gateway.code}" cannot take payments yet.`);
    const { charge, keep } = await this.chargeFor(request.payWith, opened, gateway);

    const { attempt, transaction } = await this.claim(opened, keep);
    const answer = await this.ask(adapter, gateway, attempt, transaction, charge, keep.save);
    return {
      transaction: await this.settlement.settle(attempt, answer, transaction.operation),
      referenceNumber: attempt.referenceNumber,
      result: answer.result,
    };
  }

  /** The last successful attempt: what capture, void and refund apply to at the gateway. */
  /** Every attempt on a transaction, oldest first (the admin console; the card only as kept: brand, last four). */
  attemptsOf(tx: Transaction): Promise<PaymentAttempt[]> {
    return this.attempts.listForTransaction(tx.id);
  }

  lastSuccessfulAttempt(tx: Transaction): Promise<PaymentAttempt | null> {
    return this.attempts.findLastSuccess(tx.id);
  }

  /**
   * Step 1: claims the transaction for a new attempt and writes the attempt (pending, with its
   * reference number) in one unit of work. Refused with the transaction's real state when it is
   * not payable or another attempt holds it (after waiting a moment for that one to settle). An
   * attempt found holding it long after its request should have finished is settled first.
   */
  /**
   * What the gateway charges and what the attempt keeps of the card (contract §15). A typed card is
   * saved when asked to or when the transaction's payment_type says so — only for a customer, on a
   * tokenizable gateway. A saved card must be the transaction's customer's, on its gateway, and
   * not expired (400 under `token`).
   */
  private async chargeFor(
    payWith: PaymentCard,
    tx: Transaction,
    gateway: Gateway,
  ): Promise<{ charge: PayInput['card']; keep: AttemptCard }> {
    if ('savedCardToken' in payWith) {
      const saved = await this.cards.findByToken(payWith.savedCardToken);
      if (!saved || !tx.customerId || saved.customerId !== tx.customerId || saved.pgCode !== tx.pgCode) {
        throw new FieldErrors({
          token: ["No saved card with this token belongs to this transaction's customer and gateway."],
        });
      }
      if (isExpired(saved.expiryMonth, saved.expiryYear))
        throw new FieldErrors({ token: ['This card has expired.'] });
      return {
        charge: { gatewayToken: saved.gatewayToken, cvc: payWith.cvc },
        keep: {
          brand: saved.brand,
          last4: saved.last4,
          expiryMonth: saved.expiryMonth,
          expiryYear: saved.expiryYear,
          nameOnCard: saved.nameOnCard,
          save: false,
          savedCardToken: saved.token,
        },
      };
    }
    const { card } = payWith;
    const save = payWith.save || isSavingPaymentType(tx.paymentType);
    if (save && !tx.customerId) {
      throw new FieldErrors({
        save_card: ['A card can only be saved for a transaction with a customer_id.'],
      });
    }
    if (save && !gateway.tokenizable) {
      throw new FieldErrors({ save_card: [`Gateway "${gateway.code}" cannot save cards.`] });
    }
    return {
      charge: { number: card.number },
      keep: {
        brand: card.brand,
        last4: card.number.slice(-4),
        expiryMonth: card.expiryMonth,
        expiryYear: card.expiryYear,
        nameOnCard: card.nameOnCard,
        fingerprint: save ? this.fingerprints.of(card.number) : undefined,
        save,
      },
    };
  }

  private async claim(
    opened: Transaction,
    card: AttemptCard,
  ): Promise<{ attempt: PaymentAttempt; transaction: Transaction }> {
    for (let round = 1; ; round++) {
      const attempt = Object.assign(new PaymentAttempt(), {
        referenceNumber: randomBytes(10).toString('hex').toUpperCase(),
        result: 'pending',
        responseCode: '',
        gatewayToken: null,
        card,
        createdAt: new Date(),
        completedAt: null,
        settledAt: null,
      } satisfies Partial<PaymentAttempt>);
      const stored = await this.transitions.claimForAttempt(
        opened.id,
        attempt.referenceNumber,
        async (manager, row) => {
          // The gateway is asked for the amount stored now, never anything the browser sent.
          Object.assign(attempt, {
            transactionId: row.id,
            pgCode: row.pgCode,
            amount: row.amount,
            currencyCode: row.currencyCode,
          });
          await this.attempts.insert(attempt, manager);
          // A saved card charged (page or auto-debit) counts as used now, whatever the outcome, and
          // for the transaction's agreement when it has one (contract §15: most recently used first).
          if (card.savedCardToken) {
            await this.cards.recordCharge(
              manager,
              card.savedCardToken,
              row.agreement?.id ?? null,
              attempt.createdAt,
            );
          }
        },
      );
      if (stored) return { attempt, transaction: stored };

      let current = await this.expiredIfDue(await this.transactions.get(opened.sessionId));
      if (!isPayable(current.state)) throw notPayable(current);
      if (!current.attemptInFlight) {
        if (round < CLAIM_ROUNDS) continue; // freed between our write and our read
        throw new AttemptRefused(ATTEMPT_IN_PROGRESS, current);
      }
      const holder = await this.attempts.findByReference(current.attemptInFlight);
      if (round === 1 && holder && this.settlement.isOverdue(holder)) {
        await this.settlement.finish(holder).catch((error: unknown) => {
          this.logger.warn({ err: error }, 'Could not settle an overdue attempt');
        });
        continue;
      }
      current = await this.waitWhileHeld(current);
      if (current.attemptInFlight) throw new AttemptRefused(ATTEMPT_IN_PROGRESS, current);
      if (!isPayable(current.state)) throw notPayable(current);
      // The other attempt was declined or failed: the customer sees that and may try again.
      throw new AttemptRefused(
        `Another payment attempt for this transaction just ended in state "${current.state}"; try again.`,
        current,
      );
    }
  }

  /**
   * Steps 2 and 3: the gateway's answer, stored before anything else can fail. When the adapter
   * fails, the gateway is asked what it did: an attempt it never received is a gateway error
   * (nothing charged); when it cannot be asked either, the attempt stays pending for the
   * reconciler and the request answers 503.
   */
  private async ask(
    adapter: GatewayAdapter,
    gateway: Gateway,
    attempt: PaymentAttempt,
    tx: Transaction,
    card: PayInput['card'],
    saveCard: boolean,
  ): Promise<StoredAnswer> {
    let answer: AttemptOutcome;
    try {
      answer = await adapter.pay({
        gateway,
        referenceNumber: attempt.referenceNumber,
        amount: attempt.amount,
        currencyCode: attempt.currencyCode,
        operation: tx.operation,
        card,
        saveCard,
      });
    } catch (error) {
      this.logger.error({ err: error, adapter: adapter.name }, 'Gateway adapter failed during an attempt');
      const known = await adapter
        .inquire({ gateway, referenceNumber: attempt.referenceNumber })
        .catch((inquiryError: unknown) => {
          this.logger.error({ err: inquiryError, adapter: adapter.name }, 'Could not ask the gateway either');
          return undefined;
        });
      if (known === undefined) throw new ServiceUnavailable();
      answer = known ?? { result: 'error', responseCode: 'adapter-error' };
    }
    await this.attempts.storeAnswer(attempt.referenceNumber, answer);
    return answer;
  }

  /** Expires a payable transaction whose deadline has passed (refused while an attempt holds it). */
  private async expiredIfDue(tx: Transaction): Promise<Transaction> {
    if (!isPayable(tx.state) || tx.attemptInFlight || tx.expiresAt.getTime() > Date.now()) return tx;
    return (await this.transitions.expireIfDue(tx)).transaction ?? tx;
  }

  /** The transaction once the attempt holding it has settled, or as it is after a short wait. */
  private async waitWhileHeld(tx: Transaction): Promise<Transaction> {
    const holder = tx.attemptInFlight;
    const until = Date.now() + IN_FLIGHT_WAIT_MS;
    let current = tx;
    while (current.attemptInFlight === holder && Date.now() < until) {
      await sleep(IN_FLIGHT_POLL_MS);
      current = await this.transactions.get(tx.sessionId);
    }
    return current;
  }
}

export function notPayable(tx: Transaction): AttemptRefused {
  return new AttemptRefused(`A transaction in state "${tx.state}" can no longer be paid.`, tx);
}
