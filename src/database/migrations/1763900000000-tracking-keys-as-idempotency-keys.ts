import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * The operations API's Tracking-Key runs on the Idempotency-Key engine (contract §11): its finished
 * results move into `idempotency_keys` (route `POST /b/pbl/v2/operation/ Tracking-Key`, the same
 * fingerprint, kept 24 h like every key) and `operation_results` goes. Claims still running are
 * dropped: their repeat runs the operation again, as after a takeover.
 */
export class TrackingKeysAsIdempotencyKeys1763900000000 implements MigrationInterface {
  name = 'TrackingKeysAsIdempotencyKeys1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `INSERT INTO idempotency_keys
         (scope, idempotency_key, route, fingerprint, status, claim_token, locked_until,
          response_status, response_headers, response_body, created_at)
       SELECT scope, tracking_key, ?, request_hash, 'done', 'migrated', NULL,
              status_code, '{}', body, created_at
       FROM operation_results WHERE status_code IS NOT NULL`,
      ['POST /b/pbl/v2/operation/ Tracking-Key'],
    );
    await q.dropTable('operation_results');
  }

  async down(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'operation_results',
      [
        s.id(),
        s.varchar('scope', 32),
        s.varchar('tracking_key', 255),
        s.varchar('request_hash', 64),
        s.int('status_code', { isNullable: true }),
        s.textColumn('body', { isNullable: true }),
        s.timestamp('created_at'),
        s.timestamp('completed_at', { isNullable: true }),
      ],
      { unique: { uq_operation_results_scope_key: ['scope', 'tracking_key'] } },
    );
  }
}
