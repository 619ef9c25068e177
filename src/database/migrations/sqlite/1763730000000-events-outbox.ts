import { MigrationInterface, QueryRunner } from 'typeorm';

/** The transactional outbox (SPEC §6): events, their deliveries and every delivery attempt. */
export class EventsOutbox1763730000000 implements MigrationInterface {
  name = 'EventsOutbox1763730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transactions ADD COLUMN event_sequence integer NOT NULL DEFAULT 0`);
    await q.query(`CREATE TABLE events (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      event_id varchar(36) NOT NULL CONSTRAINT uq_events_event_id UNIQUE,
      transaction_id integer NOT NULL,
      session_id varchar(40) NOT NULL,
      sequence integer NOT NULL,
      event varchar(16) NOT NULL,
      payload text NOT NULL,
      context text NOT NULL,
      created_at datetime NOT NULL,
      CONSTRAINT uq_events_transaction_sequence UNIQUE (transaction_id, sequence)
    )`);
    await q.query(`CREATE INDEX idx_events_session_id ON events (session_id)`);
    await q.query(`CREATE TABLE deliveries (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      event_id integer NOT NULL REFERENCES events (id),
      channel varchar(16) NOT NULL,
      target varchar(255) NOT NULL,
      status varchar(16) NOT NULL,
      attempts integer NOT NULL,
      next_attempt_at datetime NOT NULL,
      claimed_by varchar(64) NULL,
      claimed_until datetime NULL,
      last_attempt_at datetime NULL,
      last_status_code integer NULL,
      last_error varchar(500) NULL,
      created_at datetime NOT NULL
    )`);
    await q.query(
      `CREATE INDEX idx_deliveries_status_next_attempt_at ON deliveries (status, next_attempt_at)`,
    );
    await q.query(`CREATE INDEX idx_deliveries_event_id ON deliveries (event_id)`);
    await q.query(`CREATE TABLE delivery_attempts (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      delivery_id integer NOT NULL REFERENCES deliveries (id),
      attempted_at datetime NOT NULL,
      status_code integer NULL,
      duration_ms integer NOT NULL,
      error varchar(500) NULL,
      response_body text NULL
    )`);
    await q.query(`CREATE INDEX idx_delivery_attempts_delivery_id ON delivery_attempts (delivery_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE delivery_attempts`);
    await q.query(`DROP TABLE deliveries`);
    await q.query(`DROP TABLE events`);
    await q.query(`ALTER TABLE transactions DROP COLUMN event_sequence`);
  }
}
