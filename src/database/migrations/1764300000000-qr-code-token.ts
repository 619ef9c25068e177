import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** `qr_code_url` (contract §16): the unguessable token of a transaction's QR code, when one was asked for. */
export class QrCodeToken1764300000000 implements MigrationInterface {
  name = 'QrCodeToken1764300000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('transactions', [s.varchar('qr_code_token', 64, { isNullable: true })]);
    await s.createIndex('transactions', 'uq_transactions_qr_code_token', ['qr_code_token'], true);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('transactions', 'uq_transactions_qr_code_token');
    await q.dropColumn('transactions', 'qr_code_token');
  }
}
