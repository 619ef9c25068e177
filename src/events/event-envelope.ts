import type { DeliveryChannel } from './delivery.entity';
import type { NotificationContext } from './event.entity';
import type { EventName } from './event-types';

/** One delivery an event asks for: a channel and its target (skipped when the transport is off). */
export interface PlannedDelivery {
  channel: DeliveryChannel;
  target: string;
  /** Set when the channel has no transport configured: the row is written as `skipped`. */
  skippedReason: string | null;
}

/**
 * An event as its producer built it, ready to be recorded: the outbox stores it and its deliveries
 * as they are, and knows nothing of the subject (a transaction) beyond these fields.
 */
export interface EventEnvelope {
  /** Public id (UUID): the webhook's `event_id`. */
  eventId: string;
  transactionId: string;
  sessionId: string;
  /** The subject's next event number (allocated by the producer, in the same DB transaction). */
  sequence: number;
  event: EventName;
  /** The webhook body without `signature`. */
  payload: Record<string, unknown>;
  context: NotificationContext;
  deliveries: PlannedDelivery[];
  createdAt: Date;
}
