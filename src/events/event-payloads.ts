import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { OutboxEvent } from './event.entity';
import { WebhookSender } from './webhooks/webhook-sender';

/** How many of a transaction's latest events are searched for an attempt's event. */
const RECENT_EVENTS = 10;

/**
 * Webhook payloads as API answers (SPEC §15 auto-debit answers with the payload of the payment's
 * event): the same signed body the webhook carries.
 */
@Injectable()
export class EventPayloads {
  constructor(
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
    private readonly sender: WebhookSender,
  ) {}

  /** The signed payload of the event an attempt's settlement recorded, or null when there is none. */
  async forAttempt(transactionId: string, referenceNumber: string): Promise<Record<string, unknown> | null> {
    const recent = await this.events.find({
      where: { transactionId },
      order: { sequence: 'DESC' },
      take: RECENT_EVENTS,
    });
    const event = recent.find((e) => e.payload.reference_number === referenceNumber);
    return event ? this.sender.signedPayload(event) : null;
  }
}
