import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DeliveriesRepository } from './deliveries.repository';
import { DELIVERY_DISPATCH, type DeliveryDispatch } from './delivery-dispatch';
import { OutboxEvent } from './event.entity';
import { WebhookSender } from './webhooks/webhook-sender';

/** How many of a transaction's latest events are searched for an attempt's event. */
const RECENT_EVENTS = 10;

/** A transaction's event and its signed webhook body. */
export interface SignedEvent {
  event: OutboxEvent;
  payload: Record<string, unknown>;
}

/**
 * Webhook payloads as API answers (contract §15 auto-debit, §16 inquiry and cash): the same signed
 * body the webhook carries, and the webhook sent again on request.
 */
@Injectable()
export class EventPayloads {
  constructor(
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
    private readonly sender: WebhookSender,
    private readonly deliveries: DeliveriesRepository,
    @Inject(DELIVERY_DISPATCH) private readonly dispatch: DeliveryDispatch,
  ) {}

  /** An event's webhook body, signed (the events feed, contract §18). */
  signed(event: OutboxEvent): Promise<Record<string, unknown>> {
    return this.sender.signedPayload(event);
  }

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

  /**
   * The transaction's latest event: every state change records one, so its payload is the
   * current state (contract §16 inquiry). Null only for a transaction without events.
   */
  async latest(transactionId: string): Promise<SignedEvent | null> {
    const [event] = await this.events.find({
      where: { transactionId },
      order: { sequence: 'DESC' },
      take: 1,
    });
    return event ? { event, payload: await this.sender.signedPayload(event) } : null;
  }

  /**
   * Delivers an event once more to `url`, through the outbox (retried like any webhook; the same
   * `event_id`, so a receiver that already has it drops it). Returns the delivery's id.
   */
  async resend(event: OutboxEvent, url: string): Promise<string> {
    const id = await this.deliveries.addWebhookDelivery(event, url, new Date());
    this.dispatch.poke();
    return id;
  }
}
