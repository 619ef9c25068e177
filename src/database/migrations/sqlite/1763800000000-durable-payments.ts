import { MigrationInterface, QueryRunner } from 'typeorm';

const ATTEMPT_COLUMNS =
  'id, transaction_id, reference_number, pg_code, result, response_code, amount, currency_code, created_at, completed_at';

/**
 * Payments that cannot be lost (SPEC §17): the transaction row names the attempt that holds it
 * (`attempt_in_flight`), an attempt is settled once (`settled_at`), and the sandbox gateway keeps
 * its own record of what it charged. SQLite cannot drop a UNIQUE column, so `payment_attempts`
 * is rebuilt without `in_flight_transaction_id`.
 */
export class DurablePayments1763800000000 implements MigrationInterface {
  name = 'DurablePayments1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE transactions ADD COLUMN attempt_in_flight varchar(64) NULL');
    await q.query(`CREATE TABLE payment_attempts_new (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      transaction_id integer NOT NULL,
      reference_number varchar(64) NOT NULL CONSTRAINT uq_payment_attempts_reference_number UNIQUE,
      pg_code varchar(64) NOT NULL,
      result varchar(16) NOT NULL,
      response_code varchar(32) NOT NULL,
      amount varchar(40) NOT NULL,
      currency_code varchar(3) NOT NULL,
      created_at datetime NOT NULL,
      completed_at datetime NULL,
      settled_at datetime NULL
    )`);
    await q.query(`INSERT INTO payment_attempts_new (${ATTEMPT_COLUMNS}, settled_at)
      SELECT ${ATTEMPT_COLUMNS}, CASE WHEN result <> 'pending' THEN completed_at END FROM payment_attempts`);
    await q.query('DROP TABLE payment_attempts');
    await q.query('ALTER TABLE payment_attempts_new RENAME TO payment_attempts');
    await q.query('CREATE INDEX idx_payment_attempts_transaction_id ON payment_attempts (transaction_id)');
    await q.query('CREATE INDEX idx_payment_attempts_unsettled ON payment_attempts (settled_at, created_at)');
    await q.query(`CREATE TABLE sandbox_charges (
      reference_number varchar(64) PRIMARY KEY NOT NULL,
      result varchar(16) NOT NULL,
      response_code varchar(32) NOT NULL,
      amount varchar(40) NOT NULL,
      currency_code varchar(3) NOT NULL,
      created_at datetime NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE sandbox_charges');
    await q.query('DROP INDEX idx_payment_attempts_unsettled');
    await q.query('ALTER TABLE payment_attempts DROP COLUMN settled_at');
    await q.query('ALTER TABLE payment_attempts ADD COLUMN in_flight_transaction_id integer NULL');
    await q.query(
      'CREATE UNIQUE INDEX uq_payment_attempts_in_flight ON payment_attempts (in_flight_transaction_id)',
    );
    await q.query('ALTER TABLE transactions DROP COLUMN attempt_in_flight');
  }
}
