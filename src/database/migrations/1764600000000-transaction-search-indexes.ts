import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * The admin transaction search (contract §18): newest first, optionally by state or customer e-mail
 * (order_no already has its index). Each index ends in created_at so the page is read in index
 * order, backwards, with the keyset condition as a range: no sort, however many rows match.
 */
export class TransactionSearchIndexes1764600000000 implements MigrationInterface {
  name = 'TransactionSearchIndexes1764600000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createIndex('transactions', 'idx_transactions_created_at', ['created_at']);
    await s.createIndex('transactions', 'idx_transactions_state_created_at', ['state', 'created_at']);
    await s.createIndex('transactions', 'idx_transactions_customer_email_created_at', [
      'customer_email',
      'created_at',
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of [
      'idx_transactions_customer_email_created_at',
      'idx_transactions_state_created_at',
      'idx_transactions_created_at',
    ]) {
      await q.dropIndex('transactions', index);
    }
  }
}
