import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** The `delete` operation (contract §16): a hidden transaction keeps its row, marked when it was deleted. */
export class TransactionDeletedAt1764500000000 implements MigrationInterface {
  name = 'TransactionDeletedAt1764500000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('transactions', [s.timestamp('deleted_at', { isNullable: true })]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('transactions', 'deleted_at');
  }
}
