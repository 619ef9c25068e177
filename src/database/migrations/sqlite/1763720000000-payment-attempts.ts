import { MigrationInterface, QueryRunner } from 'typeorm';

/** Payment attempts (never card data) and the operations API's Tracking-Key results. */
export class PaymentAttempts1763720000000 implements MigrationInterface {
  name = 'PaymentAttempts1763720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE payment_attempts (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      transaction_id integer NOT NULL,
      reference_number varchar(64) NOT NULL CONSTRAINT uq_payment_attempts_reference_number UNIQUE,
      pg_code varchar(64) NOT NULL,
      result varchar(16) NOT NULL,
      response_code varchar(32) NOT NULL,
      amount varchar(40) NOT NULL,
      currency_code varchar(3) NOT NULL,
      in_flight_transaction_id integer NULL CONSTRAINT uq_payment_attempts_in_flight UNIQUE,
      created_at datetime NOT NULL,
      completed_at datetime NULL
    )`);
    await q.query('CREATE INDEX idx_payment_attempts_transaction_id ON payment_attempts (transaction_id)');
    await q.query(`CREATE TABLE operation_results (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      scope varchar(32) NOT NULL,
      tracking_key varchar(255) NOT NULL,
      request_hash varchar(64) NOT NULL,
      status_code integer NULL,
      body text NULL,
      created_at datetime NOT NULL,
      completed_at datetime NULL,
      CONSTRAINT uq_operation_results_scope_key UNIQUE (scope, tracking_key)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE operation_results');
    await q.query('DROP TABLE payment_attempts');
  }
}
