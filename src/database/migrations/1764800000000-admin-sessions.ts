import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** The admin console's sign-in sessions (contract §19). */
export class AdminSessions1764800000000 implements MigrationInterface {
  name = 'AdminSessions1764800000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'admin_sessions',
      [
        s.id(),
        s.varchar('token_hash', 64),
        s.int('user_id'),
        s.varchar('csrf_token', 64),
        s.timestamp('created_at'),
        s.timestamp('last_seen_at'),
      ],
      {
        unique: { uq_admin_sessions_token_hash: ['token_hash'] },
        index: { idx_admin_sessions_last_seen_at: ['last_seen_at'] },
      },
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('admin_sessions');
  }
}
