import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** The transactional outbox (contract §6): events, their deliveries and every delivery attempt. */
export class EventsOutbox1763730000000 implements MigrationInterface {
  name = 'EventsOutbox1763730000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('transactions', [s.int('event_sequence', { default: 0 })]);
    await s.createTable(
      'events',
      [
        s.id(),
        s.varchar('event_id', 36),
        s.bigint('transaction_id'),
        s.varchar('session_id', 40),
        s.int('sequence'),
        s.varchar('event', 16),
        s.textColumn('payload'),
        s.textColumn('context'),
        s.timestamp('created_at'),
      ],
      {
        unique: {
          uq_events_event_id: ['event_id'],
          uq_events_transaction_sequence: ['transaction_id', 'sequence'],
        },
        index: { idx_events_session_id: ['session_id'] },
      },
    );
    await s.createTable(
      'deliveries',
      [
        s.id(),
        s.bigint('event_id'),
        s.varchar('channel', 16),
        s.varchar('target', 255),
        s.varchar('status', 16),
        s.int('attempts'),
        s.timestamp('next_attempt_at'),
        s.varchar('claimed_by', 64, { isNullable: true }),
        s.timestamp('claimed_until', { isNullable: true }),
        s.timestamp('last_attempt_at', { isNullable: true }),
        s.int('last_status_code', { isNullable: true }),
        s.varchar('last_error', 500, { isNullable: true }),
        s.timestamp('created_at'),
      ],
      {
        index: {
          idx_deliveries_status_next_attempt_at: ['status', 'next_attempt_at'],
          idx_deliveries_event_id: ['event_id'],
        },
        references: [{ name: 'fk_deliveries_event', column: 'event_id', table: 'events' }],
      },
    );
    await s.createTable(
      'delivery_attempts',
      [
        s.id(),
        s.bigint('delivery_id'),
        s.timestamp('attempted_at'),
        s.int('status_code', { isNullable: true }),
        s.int('duration_ms'),
        s.varchar('error', 500, { isNullable: true }),
        s.textColumn('response_body', { isNullable: true }),
      ],
      {
        index: { idx_delivery_attempts_delivery_id: ['delivery_id'] },
        references: [{ name: 'fk_delivery_attempts_delivery', column: 'delivery_id', table: 'deliveries' }],
      },
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('delivery_attempts');
    await q.dropTable('deliveries');
    await q.dropTable('events');
    await q.dropColumn('transactions', 'event_sequence');
  }
}
