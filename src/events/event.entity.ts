import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, TimestampColumn } from '../database/columns';
import type { EventName } from './event-types';

/** What notifications need beside the webhook payload (captured when the event is recorded). */
export interface NotificationContext {
  language: string;
  checkout_url: string;
  attachment_url: string | null;
  merchant_name: string;
}

/** One event of a transaction (contract §6), written in the same DB transaction as its state change. */
@Entity({ name: 'events' })
@Index('uq_events_transaction_sequence', ['transactionId', 'sequence'], { unique: true })
export class OutboxEvent {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** Public id (UUID): the webhook's `event_id` and the Standard Webhooks `webhook-id`. */
  @Column({ name: 'event_id', type: 'varchar', length: 36, unique: true })
  eventId: string;

  @Column({ name: 'transaction_id', type: 'bigint' })
  transactionId: string;

  @Column({ name: 'session_id', type: 'varchar', length: 40 })
  sessionId: string;

  /** Rises by one with every event of the transaction. */
  @Column({ type: 'int' })
  sequence: number;

  @Column({ type: 'varchar', length: 16 })
  event: EventName;

  /** The webhook body without `signature`: a snapshot taken when the event was recorded. */
  @JsonColumn()
  payload: Record<string, unknown>;

  @JsonColumn()
  context: NotificationContext;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  /** Its place in the merchant events feed (contract §18), given after it was committed; null until then. */
  @Index('uq_events_feed_position', { unique: true })
  @Column({ name: 'feed_position', type: 'bigint', nullable: true })
  feedPosition: string | null;
}
