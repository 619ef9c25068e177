import { Injectable } from '@nestjs/common';
import { ServiceUnavailable } from '../common/errors/domain-errors';
import { EventPayloads } from '../events/event-payloads';
import { PaymentsService } from './payments.service';

/** Merchant-initiated charges of saved cards (contract §15). */
@Injectable()
export class AutoDebitService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly payloads: EventPayloads,
  ) {}

  /** One attempt with the saved card; the answer is the webhook payload its settlement recorded. */
  async charge(sessionId: string, token: string): Promise<Record<string, unknown>> {
    const attempt = await this.payments.attempt(sessionId, { payWith: { savedCardToken: token } });
    const payload = await this.payloads.forAttempt(attempt.transaction.id, attempt.referenceNumber);
    if (!payload) throw new ServiceUnavailable(); // settled by someone else meanwhile: ask again (Idempotency-Key)
    return payload;
  }
}
