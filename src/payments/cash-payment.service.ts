import { Injectable } from '@nestjs/common';
import { FieldErrors, ServiceUnavailable } from '../common/errors/domain-errors';
import { UnitOfWork } from '../database/unit-of-work';
import { EventPayloads } from '../events/event-payloads';
import { isCash } from '../gateways/gateway.entity';
import { isPayable } from '../transactions/transaction-state';
import type { Transaction } from '../transactions/transaction.entity';
import { TransactionsService } from '../transactions/transactions.service';
import { TransitionService } from '../transactions/transition.service';
import { gatewayResponse, responseMessage } from './gateway-response';
import { attemptOn, type PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository, type StoredAnswer } from './payment-attempts.repository';
import { ATTEMPT_IN_PROGRESS, AttemptRefused, notPayable, PaymentsService } from './payments.service';
import { newReferenceNumber } from './reference-numbers';

/** A cash acknowledgement is an approved attempt in the gateway's own terms (ISO 8583 `00`). */
const CASH_RECEIVED: StoredAnswer = { result: 'success', responseCode: '00' };

/**
 * The merchant's acknowledgement of cash (contract §16): a payable transaction on a cash gateway
 * becomes `paid`, with its `paid` event and a settled attempt (so admins see it and a refund
 * applies to it), all in one unit of work. Two acknowledgements at once pay once.
 */
@Injectable()
export class CashPaymentService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly transitions: TransitionService,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly payloads: EventPayloads,
    private readonly transactions: TransactionsService,
    private readonly uow: UnitOfWork,
  ) {}

  async acknowledge(sessionId: string): Promise<Record<string, unknown>> {
    const { transaction: tx, gateway } = await this.payments.open(sessionId);
    if (!isCash(gateway)) {
      throw new FieldErrors({
        session_id: [`The transaction's gateway "${gateway.code}" does not take cash.`],
      });
    }
    if (!isPayable(tx.state)) throw notPayable(tx);
    const now = new Date();
    const referenceNumber = newReferenceNumber();
    const paid = await this.uow.run(async (manager) => {
      const change = await this.transitions.change(manager, tx, {
        trigger: 'attempt_paid',
        amounts: { paidAmount: tx.amount },
        now,
      });
      if (!change) return null;
      await this.attempts.insert(cashAttempt(referenceNumber, change.transaction, now), manager);
      await this.transitions.record(manager, change, {
        referenceNumber,
        result: 'success',
        message: responseMessage(CASH_RECEIVED),
        gatewayResponse: gatewayResponse(CASH_RECEIVED, referenceNumber, gateway.code),
      });
      return change.transaction;
    });
    if (!paid) {
      const current = (await this.transactions.findById(tx.id)) ?? tx;
      if (current.attemptInFlight) throw new AttemptRefused(ATTEMPT_IN_PROGRESS, current);
      throw notPayable(current);
    }
    const payload = await this.payloads.forAttempt(tx.id, referenceNumber);
    if (!payload) throw new ServiceUnavailable();
    return payload;
  }
}

/** The settled attempt that records a cash acknowledgement of `tx` (as the change left it). */
function cashAttempt(referenceNumber: string, tx: Transaction, now: Date): PaymentAttempt {
  return attemptOn(referenceNumber, tx, {
    ...CASH_RECEIVED,
    card: null,
    createdAt: now,
    completedAt: now,
    settledAt: now,
  });
}
