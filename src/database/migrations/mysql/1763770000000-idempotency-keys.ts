import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** `Idempotency-Key` claims and stored responses of create and update (SPEC §11). */
export class IdempotencyKeys1763770000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763770000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE idempotency_keys (
      id bigint NOT NULL AUTO_INCREMENT,
      scope varchar(32) NOT NULL,
      idempotency_key varchar(255) NOT NULL,
      route varchar(128) NOT NULL,
      fingerprint varchar(64) NOT NULL,
      status varchar(16) NOT NULL,
      claim_token varchar(32) NOT NULL,
      locked_until datetime(3) NULL,
      response_status int NULL,
      response_headers text NULL,
      response_body mediumtext NULL,
      created_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_idempotency_keys_scope_key_route (scope, idempotency_key, route),
      KEY idx_idempotency_keys_created_at (created_at)
    ) ${TABLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_keys');
  }
}
