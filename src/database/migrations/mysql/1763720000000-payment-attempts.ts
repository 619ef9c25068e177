import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** Payment attempts (never card data) and the operations API's Tracking-Key results. */
export class PaymentAttempts1763720000000 implements MigrationInterface {
  name = 'PaymentAttempts1763720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE payment_attempts (
      id bigint NOT NULL AUTO_INCREMENT,
      transaction_id bigint NOT NULL,
      reference_number varchar(64) NOT NULL,
      pg_code varchar(64) NOT NULL,
      result varchar(16) NOT NULL,
      response_code varchar(32) NOT NULL,
      amount decimal(19,6) NOT NULL,
      currency_code varchar(3) NOT NULL,
      in_flight_transaction_id bigint NULL,
      created_at datetime(3) NOT NULL,
      completed_at datetime(3) NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_payment_attempts_reference_number (reference_number),
      UNIQUE KEY uq_payment_attempts_in_flight (in_flight_transaction_id),
      KEY idx_payment_attempts_transaction_id (transaction_id)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE operation_results (
      id bigint NOT NULL AUTO_INCREMENT,
      scope varchar(32) NOT NULL,
      tracking_key varchar(255) NOT NULL,
      request_hash varchar(64) NOT NULL,
      status_code int NULL,
      body text NULL,
      created_at datetime(3) NOT NULL,
      completed_at datetime(3) NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_operation_results_scope_key (scope, tracking_key)
    ) ${TABLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE operation_results');
    await q.query('DROP TABLE payment_attempts');
  }
}
