import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, TimestampColumn } from '../database/columns';

/**
 * The first result of an operation sent with a `Tracking-Key` (SPEC §10), scoped to the credential:
 * a repeat with the same key answers this instead of running again. `status_code` is NULL while
 * the first request is still running.
 */
@Entity({ name: 'operation_results' })
@Index('uq_operation_results_scope_key', ['scope', 'trackingKey'], { unique: true })
export class OperationResult {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** `key:<id>` or `user:<id>`. */
  @Column({ type: 'varchar', length: 32 })
  scope: string;

  @Column({ name: 'tracking_key', type: 'varchar', length: 255 })
  trackingKey: string;

  /** SHA-256 of the request body, so a key reused for another request is noticed. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  @Column({ name: 'status_code', type: 'int', nullable: true })
  statusCode: number | null;

  @JsonColumn({ nullable: true })
  body: Record<string, unknown> | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'completed_at', nullable: true })
  completedAt: Date | null;
}
