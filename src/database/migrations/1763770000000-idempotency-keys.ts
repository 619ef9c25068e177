import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** `Idempotency-Key` claims and stored responses of create and update (contract §11). */
export class IdempotencyKeys1763770000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763770000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'idempotency_keys',
      [
        s.id(),
        s.varchar('scope', 32),
        s.varchar('idempotency_key', 255),
        s.varchar('route', 128),
        s.varchar('fingerprint', 64),
        s.varchar('status', 16),
        s.varchar('claim_token', 32),
        s.timestamp('locked_until', { isNullable: true }),
        s.int('response_status', { isNullable: true }),
        s.textColumn('response_headers', { isNullable: true }),
        s.longText('response_body', { isNullable: true }),
        s.timestamp('created_at'),
      ],
      {
        unique: { uq_idempotency_keys_scope_key_route: ['scope', 'idempotency_key', 'route'] },
        index: { idx_idempotency_keys_created_at: ['created_at'] },
      },
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('idempotency_keys');
  }
}
