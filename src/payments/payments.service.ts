import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import {
  BadRequest,
  FieldErrors,
  NotFound,
  PermissionDenied,
  StateConflict,
} from '../common/errors/domain-errors';
import { isUniqueViolation } from '../database/db-values';
import type { Gateway } from '../gateways/gateway.entity';
import { GatewaysService } from '../gateways/gateways.service';
import type { Trigger } from '../transactions/state-machine';
import type { Transaction } from '../transactions/transaction.entity';
import { isPayable } from '../transactions/transaction-state';
import { TransactionsService } from '../transactions/transactions.service';
import { TransitionService } from '../transactions/transition.service';
import type { AttemptOutcome } from './adapters/gateway-adapter';
import { GatewayAdapters } from './adapters/gateway-adapters';
import { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository } from './payment-attempts.repository';

/** An attempt still "in flight" after this long was abandoned (a crashed replica). */
const STALE_ATTEMPT_MS = 120_000;

export interface AttemptRequest {
  /** The card number as typed (spaces and dashes allowed). Never stored or logged. */
  card: unknown;
  /** The payment method the customer chose (payment page URL); must be the transaction's. */
  pgCode?: string;
  /** The test helper runs only against sandbox gateways (SPEC §9). */
  sandboxOnly?: boolean;
}

export interface AttemptResultView {
  transaction: Transaction;
  referenceNumber: string;
  result: AttemptOutcome['result'];
}

/**
 * A payment attempt (SPEC §9), the same for the payment page and the test helper: checks that the
 * transaction is payable and not past its deadline, asks the gateway adapter, records the attempt
 * and applies the transition through the state machine.
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
  ) {}

  /**
   * The transaction a customer is about to pay, expired first when its deadline has passed while it
   * was still payable (SPEC §7: the customer then sees `expired`). 404 when unknown, or when
   * `pgCode` is not its payment method.
   */
  async open(sessionId: string, pgCode?: string): Promise<{ transaction: Transaction; gateway: Gateway }> {
    let tx = await this.transactions.get(sessionId);
    if (pgCode !== undefined && pgCode !== tx.pgCode) throw new NotFound();
    const gateway = await this.gateways.findByCode(tx.pgCode);
    if (!gateway) throw new NotFound();
    if (isPayable(tx.state) && tx.expiresAt.getTime() <= Date.now()) {
      const outcome = await this.transitions.expireIfDue(tx);
      tx = outcome.transaction ?? tx;
    }
    return { transaction: tx, gateway };
  }

  async attempt(sessionId: string, request: AttemptRequest): Promise<AttemptResultView> {
    const { transaction: opened, gateway } = await this.open(sessionId, request.pgCode);
    if (request.sandboxOnly && gateway.type !== 'sandbox') {
      throw new PermissionDenied('Test helpers only work with gateways of type "sandbox".');
    }
    if (!isPayable(opened.state)) throw notPayable(opened);
    const card = normalizeCard(request.card);
    const adapter = this.adapters.for(gateway);
    if (!adapter) throw new BadRequest(`Gateway "${gateway.code}" cannot take payments yet.`);

    const attempt = await this.claim(opened);
    // Re-read under the claim: an attempt that finished meanwhile may have paid it already. The
    // gateway is then asked for the amount stored now.
    let tx = await this.transactions.get(sessionId);
    if (isPayable(tx.state) && tx.expiresAt.getTime() <= Date.now()) {
      tx = (await this.transitions.expireIfDue(tx)).transaction ?? tx;
    }
    if (!isPayable(tx.state)) {
      await this.attempts.release(attempt.referenceNumber);
      throw notPayable(tx);
    }
    let outcome: AttemptOutcome;
    try {
      outcome = await adapter.pay({
        gateway,
        referenceNumber: attempt.referenceNumber,
        amount: tx.amount,
        currencyCode: tx.currencyCode,
        operation: tx.operation,
        card,
      });
    } catch (error) {
      this.logger.error({ err: error, adapter: adapter.name }, 'Gateway adapter failed during an attempt');
      outcome = { result: 'error', responseCode: 'adapter-error' };
    }

    const charged = { ...outcome, amount: tx.amount };
    const trigger = triggerFor(outcome, tx);
    const applied = await this.transitions.apply(tx, {
      trigger,
      amounts: trigger === 'attempt_paid' ? { paidAmount: tx.amount } : undefined,
      details: {
        referenceNumber: attempt.referenceNumber,
        result: outcome.result === 'declined' ? 'failed' : outcome.result,
      },
      alsoWrite: (manager) => this.attempts.complete(attempt.referenceNumber, charged, manager),
    });
    if (!applied.applied) {
      // The state changed while the gateway was working (e.g. canceled): keep the attempt's record.
      await this.attempts.complete(attempt.referenceNumber, charged);
      this.logger.warn(
        { sessionId: tx.sessionId, referenceNumber: attempt.referenceNumber, result: outcome.result },
        'Attempt finished after the transaction left a payable state',
      );
      throw notPayable(applied.transaction ?? tx);
    }
    return {
      transaction: applied.transaction,
      referenceNumber: attempt.referenceNumber,
      result: outcome.result,
    };
  }

  /** The last successful attempt: what capture, void and refund apply to at the gateway. */
  lastSuccessfulAttempt(tx: Transaction): Promise<PaymentAttempt | null> {
    return this.attempts.findLastSuccess(tx.id);
  }

  /** Inserts the attempt as in flight: one per transaction at a time, on every replica. */
  private async claim(tx: Transaction): Promise<PaymentAttempt> {
    for (let round = 0; round < 2; round++) {
      const attempt = Object.assign(new PaymentAttempt(), {
        transactionId: tx.id,
        referenceNumber: randomBytes(10).toString('hex').toUpperCase(),
        pgCode: tx.pgCode,
        result: 'pending',
        responseCode: '',
        amount: tx.amount,
        currencyCode: tx.currencyCode,
        inFlightTransactionId: tx.id,
        createdAt: new Date(),
        completedAt: null,
      } satisfies Partial<PaymentAttempt>);
      try {
        await this.attempts.insert(attempt);
        return attempt;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (round > 0) break;
        const freed = await this.attempts.abandonStale(tx.id, new Date(Date.now() - STALE_ATTEMPT_MS));
        if (freed === 0) break;
      }
    }
    throw new StateConflict('A payment attempt for this transaction is already in progress.');
  }
}

function triggerFor(outcome: AttemptOutcome, tx: Transaction): Trigger {
  switch (outcome.result) {
    case 'success':
      return tx.operation === 'authorize' ? 'attempt_authorized' : 'attempt_paid';
    case 'declined':
      return 'attempt_declined';
    case 'error':
      return 'attempt_error';
  }
}

export function notPayable(tx: Transaction): StateConflict {
  return new StateConflict(`A transaction in state "${tx.state}" can no longer be paid.`);
}

/** Digits only; spaces and dashes are allowed between groups. 400 when it is no card number. */
export function normalizeCard(card: unknown): string {
  if (typeof card !== 'string' || card.trim() === '') {
    throw new FieldErrors({
      card: [card === undefined ? 'This field is required.' : 'Enter a valid card number.'],
    });
  }
  const digits = card.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) throw new FieldErrors({ card: ['Enter a valid card number.'] });
  return digits;
}
