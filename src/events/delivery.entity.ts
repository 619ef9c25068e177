import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';

export const DELIVERY_CHANNELS = ['webhook', 'email', 'sms'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One outbox row: an event to send on one channel to one target (contract §6). */
@Entity({ name: 'deliveries' })
@Index('idx_deliveries_status_next_attempt_at', ['status', 'nextAttemptAt'])
export class Delivery {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** The `events.id` (internal id) this delivery sends. */
  @Index('idx_deliveries_event_id')
  @Column({ name: 'event_id', type: 'bigint' })
  eventRowId: string;

  @Column({ type: 'varchar', length: 16 })
  channel: DeliveryChannel;

  /** Webhook URL, e-mail address or phone number. */
  @Column({ type: 'varchar', length: 255 })
  target: string;

  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  @Column({ type: 'int' })
  attempts: number;

  @TimestampColumn({ name: 'next_attempt_at' })
  nextAttemptAt: Date;

  /** The claim token of the worker holding the row, until `claimedUntil` (its lease). */
  @Column({ name: 'claimed_by', type: 'varchar', length: 64, nullable: true })
  claimedBy: string | null;

  @TimestampColumn({ name: 'claimed_until', nullable: true })
  claimedUntil: Date | null;

  @TimestampColumn({ name: 'last_attempt_at', nullable: true })
  lastAttemptAt: Date | null;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}

/** A fresh delivery row: pending (or skipped, with the reason), never tried, unclaimed. */
export function newDeliveryRow(input: {
  eventRowId: string;
  channel: DeliveryChannel;
  target: string;
  skippedReason?: string | null;
  now: Date;
}): Partial<Delivery> {
  return {
    eventRowId: input.eventRowId,
    channel: input.channel,
    target: input.target,
    status: input.skippedReason ? 'skipped' : 'pending',
    attempts: 0,
    nextAttemptAt: input.now,
    claimedBy: null,
    claimedUntil: null,
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: input.skippedReason ?? null,
    createdAt: input.now,
  };
}
