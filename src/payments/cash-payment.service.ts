import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { FieldErrors, ServiceUnavailable } from '../common/errors/domain-errors';
import { EventPayloads } from '../events/event-payloads';
import { isCash } from '../gateways/gateway.entity';
import { isPayable } from '../transactions/transaction-state';
import { TransitionService } from '../transactions/transition.service';
import { gatewayResponse, responseMessage } from './gateway-response';
import { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository, type StoredAnswer } from './payment-attempts.repository';
import { ATTEMPT_IN_PROGRESS, AttemptRefused, notPayable, PaymentsService } from './payments.service';

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
    const attempt = Object.assign(new PaymentAttempt(), {
      referenceNumber: randomBytes(10).toString('hex').toUpperCase(),
      transactionId: tx.id,
      pgCode: gateway.code,
      ...CASH_RECEIVED,
      gatewayToken: null,
      card: null,
      createdAt: now,
      completedAt: now,
      settledAt: now,
    } satisfies Partial<PaymentAttempt>);
    const outcome = await this.transitions.apply(tx, {
      trigger: 'attempt_paid',
      amounts: { paidAmount: tx.amount },
      details: {
        referenceNumber: attempt.referenceNumber,
        result: 'success',
        message: responseMessage(CASH_RECEIVED),
        gatewayResponse: gatewayResponse(CASH_RECEIVED, attempt.referenceNumber, gateway.code),
      },
      alsoWrite: (manager, row) => {
        Object.assign(attempt, { amount: row.amount, currencyCode: row.currencyCode });
        return this.attempts.insert(attempt, manager);
      },
      now,
    });
    if (!outcome.applied) {
      const current = outcome.transaction ?? tx;
      if (current.attemptInFlight) throw new AttemptRefused(ATTEMPT_IN_PROGRESS, current);
      throw notPayable(current);
    }
    const payload = await this.payloads.forAttempt(tx.id, attempt.referenceNumber);
    if (!payload) throw new ServiceUnavailable();
    return payload;
  }
}
