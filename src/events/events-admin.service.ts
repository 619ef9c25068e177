import { Injectable } from '@nestjs/common';
import { NotFound, StateConflict } from '../common/errors/domain-errors';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliveryAttempt } from './delivery-attempt.entity';
import type { Delivery } from './delivery.entity';
import type { DeliveryDto, EventDto, RedeliveryDto } from './event-admin.dto';
import { EventPayloads } from './event-payloads';

/**
 * The admin view of a transaction's events and their deliveries (contract §8), by the transaction's
 * row id: the admin controller resolves the session first.
 */
@Injectable()
export class EventsAdminService {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly payloads: EventPayloads,
  ) {}

  async list(transactionId: string): Promise<EventDto[]> {
    const events = await this.deliveries.eventsOf(transactionId);
    const deliveries = await this.deliveries.deliveriesOfEvents(events.map((e) => e.id));
    const attempts = await this.deliveries.attemptsOf(deliveries.map((d) => d.id));
    return events.map((event) => ({
      event_id: event.eventId,
      event: event.event,
      sequence: event.sequence,
      created_at: event.createdAt.toISOString(),
      deliveries: deliveries
        .filter((d) => d.eventRowId === event.id)
        .map((d) =>
          toDeliveryDto(
            d,
            attempts.filter((a) => a.deliveryId === d.id),
          ),
        ),
    }));
  }

  /** A fresh webhook delivery of one of the transaction's events, to its current `webhookUrl`. */
  async redeliver(transactionId: string, eventId: string, webhookUrl: string): Promise<RedeliveryDto> {
    const event = await this.deliveries.findEvent(transactionId, eventId);
    if (!event) throw new NotFound();
    if (!webhookUrl) throw new StateConflict('The transaction has no webhook_url to deliver to.');
    const id = await this.payloads.resend(event, webhookUrl);
    return { detail: 'Redelivery queued.', delivery_id: Number(id) };
  }
}

function toDeliveryDto(d: Delivery, attempts: DeliveryAttempt[]): DeliveryDto {
  return {
    id: Number(d.id),
    channel: d.channel,
    target: d.target,
    status: d.status,
    attempts: d.attempts,
    last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    attempt_log: attempts.map((a) => ({
      attempted_at: a.attemptedAt.toISOString(),
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      response_body: a.responseBody,
    })),
  };
}
