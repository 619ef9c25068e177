import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * Payments that cannot be lost (contract §17): the transaction row names the attempt that holds it
 * (`attempt_in_flight`, claimed by a conditional UPDATE before the gateway is called), an attempt
 * is settled once (`settled_at`; the reconciler finds the unsettled ones), and the sandbox
 * gateway keeps its own record of what it charged, so it can be asked later. (On SQLite,
 * TypeORM rebuilds `payment_attempts` to drop its unique column.)
 */
export class DurablePayments1763800000000 implements MigrationInterface {
  name = 'DurablePayments1763800000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('transactions', [s.varchar('attempt_in_flight', 64, { isNullable: true })]);
    await s.addColumns('payment_attempts', [s.timestamp('settled_at', { isNullable: true })]);
    await q.query(`UPDATE payment_attempts SET settled_at = completed_at WHERE result <> 'pending'`);
    await q.dropIndex('payment_attempts', 'uq_payment_attempts_in_flight');
    await q.dropColumn('payment_attempts', 'in_flight_transaction_id');
    await s.createIndex('payment_attempts', 'idx_payment_attempts_unsettled', ['settled_at', 'created_at']);
    await s.createTable('sandbox_charges', [
      s.varchar('reference_number', 64, { isPrimary: true }),
      s.varchar('result', 16),
      s.varchar('response_code', 32),
      s.money('amount'),
      s.varchar('currency_code', 3),
      s.timestamp('created_at'),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await q.dropTable('sandbox_charges');
    await q.dropIndex('payment_attempts', 'idx_payment_attempts_unsettled');
    await q.dropColumn('payment_attempts', 'settled_at');
    await s.addColumns('payment_attempts', [s.bigint('in_flight_transaction_id', { isNullable: true })]);
    await s.createIndex(
      'payment_attempts',
      'uq_payment_attempts_in_flight',
      ['in_flight_transaction_id'],
      true,
    );
    await q.dropColumn('transactions', 'attempt_in_flight');
  }
}
