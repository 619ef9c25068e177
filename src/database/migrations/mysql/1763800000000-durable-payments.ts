import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/**
 * Payments that cannot be lost (SPEC §17): the transaction row names the attempt that holds it
 * (`attempt_in_flight`, claimed by a conditional UPDATE before the gateway is called), an attempt
 * is settled once (`settled_at`; the reconciler finds the unsettled ones), and the sandbox
 * gateway keeps its own record of what it charged, so it can be asked later.
 */
export class DurablePayments1763800000000 implements MigrationInterface {
  name = 'DurablePayments1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE transactions ADD COLUMN attempt_in_flight varchar(64) NULL');
    await q.query(`ALTER TABLE payment_attempts
      ADD COLUMN settled_at datetime(3) NULL,
      DROP INDEX uq_payment_attempts_in_flight,
      DROP COLUMN in_flight_transaction_id,
      ADD KEY idx_payment_attempts_unsettled (settled_at, created_at)`);
    await q.query(`UPDATE payment_attempts SET settled_at = completed_at WHERE result <> 'pending'`);
    await q.query(`CREATE TABLE sandbox_charges (
      reference_number varchar(64) NOT NULL,
      result varchar(16) NOT NULL,
      response_code varchar(32) NOT NULL,
      amount decimal(19,6) NOT NULL,
      currency_code varchar(3) NOT NULL,
      created_at datetime(3) NOT NULL,
      PRIMARY KEY (reference_number)
    ) ${TABLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE sandbox_charges');
    await q.query(`ALTER TABLE payment_attempts
      DROP KEY idx_payment_attempts_unsettled,
      DROP COLUMN settled_at,
      ADD COLUMN in_flight_transaction_id bigint NULL,
      ADD UNIQUE KEY uq_payment_attempts_in_flight (in_flight_transaction_id)`);
    await q.query('ALTER TABLE transactions DROP COLUMN attempt_in_flight');
  }
}
