import { MigrationInterface, QueryRunner } from 'typeorm';

/** Attachments (their files and the transaction's link to one) and short links (SPEC §12). */
export class AttachmentsShortLinks1763740000000 implements MigrationInterface {
  name = 'AttachmentsShortLinks1763740000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE attachments (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      token varchar(64) NOT NULL CONSTRAINT uq_attachments_token UNIQUE,
      storage_key varchar(128) NOT NULL,
      file_name varchar(128) NOT NULL,
      content_type varchar(128) NOT NULL,
      size integer NOT NULL,
      created_at datetime NOT NULL
    )`);
    await q.query(`CREATE TABLE short_links (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      code varchar(16) NOT NULL CONSTRAINT uq_short_links_code UNIQUE,
      target varchar(512) NOT NULL,
      created_at datetime NOT NULL
    )`);
    await q.query(`ALTER TABLE transactions ADD COLUMN attachment_token varchar(64) NULL`);
    await q.query(`ALTER TABLE transactions ADD COLUMN attachment_name varchar(128) NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transactions DROP COLUMN attachment_name`);
    await q.query(`ALTER TABLE transactions DROP COLUMN attachment_token`);
    await q.query(`DROP TABLE short_links`);
    await q.query(`DROP TABLE attachments`);
  }
}
