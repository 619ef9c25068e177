import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** The transactional outbox (SPEC §6): events, their deliveries and every delivery attempt. */
export class EventsOutbox1763730000000 implements MigrationInterface {
  name = 'EventsOutbox1763730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transactions ADD COLUMN event_sequence int NOT NULL DEFAULT 0`);
    await q.query(`CREATE TABLE events (
      id bigint NOT NULL AUTO_INCREMENT,
      event_id varchar(36) NOT NULL,
      transaction_id bigint NOT NULL,
      session_id varchar(40) NOT NULL,
      sequence int NOT NULL,
      event varchar(16) NOT NULL,
      payload text NOT NULL,
      context text NOT NULL,
      created_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_events_event_id (event_id),
      UNIQUE KEY uq_events_transaction_sequence (transaction_id, sequence),
      KEY idx_events_session_id (session_id)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE deliveries (
      id bigint NOT NULL AUTO_INCREMENT,
      event_id bigint NOT NULL,
      channel varchar(16) NOT NULL,
      target varchar(255) NOT NULL,
      status varchar(16) NOT NULL,
      attempts int NOT NULL,
      next_attempt_at datetime(3) NOT NULL,
      claimed_by varchar(64) NULL,
      claimed_until datetime(3) NULL,
      last_attempt_at datetime(3) NULL,
      last_status_code int NULL,
      last_error varchar(500) NULL,
      created_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      KEY idx_deliveries_status_next_attempt_at (status, next_attempt_at),
      KEY idx_deliveries_event_id (event_id),
      CONSTRAINT fk_deliveries_event FOREIGN KEY (event_id) REFERENCES events (id)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE delivery_attempts (
      id bigint NOT NULL AUTO_INCREMENT,
      delivery_id bigint NOT NULL,
      attempted_at datetime(3) NOT NULL,
      status_code int NULL,
      duration_ms int NOT NULL,
      error varchar(500) NULL,
      response_body text NULL,
      PRIMARY KEY (id),
      KEY idx_delivery_attempts_delivery_id (delivery_id),
      CONSTRAINT fk_delivery_attempts_delivery FOREIGN KEY (delivery_id) REFERENCES deliveries (id)
    ) ${TABLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE delivery_attempts`);
    await q.query(`DROP TABLE deliveries`);
    await q.query(`DROP TABLE events`);
    await q.query(`ALTER TABLE transactions DROP COLUMN event_sequence`);
  }
}
