import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** Attachments (their files and the transaction's link to one) and short links (SPEC §12). */
export class AttachmentsShortLinks1763740000000 implements MigrationInterface {
  name = 'AttachmentsShortLinks1763740000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE attachments (
      id bigint NOT NULL AUTO_INCREMENT,
      token varchar(64) NOT NULL,
      storage_key varchar(128) NOT NULL,
      file_name varchar(128) NOT NULL,
      content_type varchar(128) NOT NULL,
      size int NOT NULL,
      created_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_attachments_token (token)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE short_links (
      id bigint NOT NULL AUTO_INCREMENT,
      code varchar(16) NOT NULL,
      target varchar(512) NOT NULL,
      created_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_short_links_code (code)
    ) ${TABLE}`);
    await q.query(`ALTER TABLE transactions
      ADD COLUMN attachment_token varchar(64) NULL,
      ADD COLUMN attachment_name varchar(128) NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transactions DROP COLUMN attachment_token, DROP COLUMN attachment_name`);
    await q.query(`DROP TABLE short_links`);
    await q.query(`DROP TABLE attachments`);
  }
}
