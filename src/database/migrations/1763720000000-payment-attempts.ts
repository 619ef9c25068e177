import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** Payment attempts (never card data) and the operations API's Tracking-Key results. */
export class PaymentAttempts1763720000000 implements MigrationInterface {
  name = 'PaymentAttempts1763720000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'payment_attempts',
      [
        s.id(),
        s.bigint('transaction_id'),
        s.varchar('reference_number', 64),
        s.varchar('pg_code', 64),
        s.varchar('result', 16),
        s.varchar('response_code', 32),
        s.money('amount'),
        s.varchar('currency_code', 3),
        s.bigint('in_flight_transaction_id', { isNullable: true }),
        s.timestamp('created_at'),
        s.timestamp('completed_at', { isNullable: true }),
      ],
      {
        unique: {
          uq_payment_attempts_reference_number: ['reference_number'],
          uq_payment_attempts_in_flight: ['in_flight_transaction_id'],
        },
        index: { idx_payment_attempts_transaction_id: ['transaction_id'] },
      },
    );
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

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('operation_results');
    await q.dropTable('payment_attempts');
  }
}
