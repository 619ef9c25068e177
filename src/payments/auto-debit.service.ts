import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { ServiceUnavailable } from '../common/errors/domain-errors';
import { EventPayloads } from '../events/event-payloads';
import { TransactionsService } from '../transactions/transactions.service';
import { PaymentsService } from './payments.service';

/** Merchant-initiated charges of saved cards (contract §15). */
@Injectable()
export class AutoDebitService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly payloads: EventPayloads,
    private readonly transactions: TransactionsService,
  ) {}

  /**
   * One attempt with the saved card; the answer is the webhook payload its settlement recorded.
   * The caller must be allowed the transaction's gateway (an API key always is): a transaction on
   * a gateway a Basic user may not use answers exactly as an unknown one, before anything else is
   * looked at or written (contract §3: permissions reveal nothing).
   */
  async charge(principal: Principal, sessionId: string, token: string): Promise<Record<string, unknown>> {
    await this.transactions.get(sessionId, principal); // unknown, or not the caller's to see: 404
    const attempt = await this.payments.attempt(sessionId, { payWith: { savedCardToken: token } });
    const payload = await this.payloads.forAttempt(attempt.transaction.id, attempt.referenceNumber);
    if (!payload) throw new ServiceUnavailable(); // settled by someone else meanwhile: ask again (Idempotency-Key)
    return payload;
  }
}
