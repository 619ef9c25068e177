import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, TimestampColumn } from '../database/columns';
import { LIMITS } from '../common/validation/limits';

export type IdempotencyStatus = 'in_flight' | 'done';

/**
 * One `Idempotency-Key` of one credential on one route (contract §11): claimed by the first request
 * (unique key: the database decides who is first), then holding that request's response, which
 * a repeat with the same body gets back. Kept 24 hours.
 */
@Entity({ name: 'idempotency_keys' })
@Index('uq_idempotency_keys_scope_key_route', ['scope', 'key', 'route'], { unique: true })
export class IdempotencyKey {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** The credential: `key:<id>` or `user:<id>` (`principalScope`). */
  @Column({ type: 'varchar', length: 32 })
  scope: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: LIMITS.idempotencyKey })
  key: string;

  /** Method and route pattern, e.g. `PATCH /b/checkout/v1/pymt-txn/:session_id`. */
  @Column({ type: 'varchar', length: 128 })
  route: string;

  /** SHA-256 (hex) of method, path, media type, canonical body and uploaded files. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ type: 'varchar', length: 16 })
  status: IdempotencyStatus;

  /** Random token of the request holding the claim: only it may complete or release the row. */
  @Column({ name: 'claim_token', type: 'varchar', length: 32 })
  claimToken: string;

  /** While in flight: after this instant the claim is considered dead and may be taken over. */
  @TimestampColumn({ name: 'locked_until', nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'response_status', type: 'int', nullable: true })
  responseStatus: number | null;

  /** The response headers a replay repeats (`ETag`, `Location`). */
  @JsonColumn({ name: 'response_headers', nullable: true })
  responseHeaders: Record<string, string> | null;

  /** The response body as sent (JSON text). */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
