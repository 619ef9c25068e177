import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** Attachments (their files and the transaction's link to one) and short links (contract §12). */
export class AttachmentsShortLinks1763740000000 implements MigrationInterface {
  name = 'AttachmentsShortLinks1763740000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'attachments',
      [
        s.id(),
        s.varchar('token', 64),
        s.varchar('storage_key', 128),
        s.varchar('file_name', 128),
        s.varchar('content_type', 128),
        s.int('size'),
        s.timestamp('created_at'),
      ],
      { unique: { uq_attachments_token: ['token'] } },
    );
    await s.createTable(
      'short_links',
      [s.id(), s.varchar('code', 16), s.varchar('target', 512), s.timestamp('created_at')],
      { unique: { uq_short_links_code: ['code'] } },
    );
    await s.addColumns('transactions', [
      s.varchar('attachment_token', 64, { isNullable: true }),
      s.varchar('attachment_name', 128, { isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumns('transactions', ['attachment_token', 'attachment_name']);
    await q.dropTable('short_links');
    await q.dropTable('attachments');
  }
}
