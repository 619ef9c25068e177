import { MigrationInterface, QueryRunner } from 'typeorm';

/** `Idempotency-Key` claims and stored responses of create and update (SPEC §11). */
export class IdempotencyKeys1763770000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763770000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE idempotency_keys (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      scope varchar(32) NOT NULL,
      idempotency_key varchar(255) NOT NULL,
      route varchar(128) NOT NULL,
      fingerprint varchar(64) NOT NULL,
      status varchar(16) NOT NULL,
      claim_token varchar(32) NOT NULL,
      locked_until datetime NULL,
      response_status integer NULL,
      response_headers text NULL,
      response_body text NULL,
      created_at datetime NOT NULL,
      CONSTRAINT uq_idempotency_keys_scope_key_route UNIQUE (scope, idempotency_key, route)
    )`);
    await q.query('CREATE INDEX idx_idempotency_keys_created_at ON idempotency_keys (created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_keys');
  }
}
