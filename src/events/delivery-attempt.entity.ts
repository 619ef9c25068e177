import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';

/** The log of one delivery attempt: time, status, duration, error, ≤ 1 KB of the answer. */
@Entity({ name: 'delivery_attempts' })
export class DeliveryAttempt {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Index('idx_delivery_attempts_delivery_id')
  @Column({ name: 'delivery_id', type: 'bigint' })
  deliveryId: string;

  @TimestampColumn({ name: 'attempted_at' })
  attemptedAt: Date;

  @Column({ name: 'status_code', type: 'int', nullable: true })
  statusCode: number | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;
}
