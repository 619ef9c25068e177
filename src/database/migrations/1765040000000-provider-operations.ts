import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * Provider operations made durable (contract §20 "Operations", §17): each capture, void or refund
 * a provider carries out is written before the provider is called, one open per transaction
 * (`open_transaction_id`, unique), its answer stored before the transaction changes; the
 * reconciler finds the unsettled ones. The sandbox gateway keeps its own record of the operations
 * it carried out, by operation key, so that a repeated key reports the first outcome.
 */
export class ProviderOperations1765040000000 implements MigrationInterface {
  name = 'ProviderOperations1765040000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'provider_operations',
      [
        s.id(),
        s.bigint('transaction_id'),
        s.bigint('open_transaction_id', { isNullable: true }),
        s.varchar('operation', 16),
        s.money('amount'),
        s.varchar('currency_code', 3),
        s.varchar('pg_code', 64),
        s.varchar('reference_number', 64),
        s.varchar('operation_key', 64),
        s.varchar('tracking_key', 255, { isNullable: true }),
        s.varchar('state', 16),
        s.varchar('message', 255, { isNullable: true }),
        s.varchar('lease_token', 32, { isNullable: true }),
        s.timestamp('leased_until', { isNullable: true }),
        s.timestamp('created_at'),
        s.timestamp('answered_at', { isNullable: true }),
        s.timestamp('settled_at', { isNullable: true }),
      ],
      {
        unique: {
          uq_provider_operations_open: ['open_transaction_id'],
          uq_provider_operations_key: ['operation_key'],
        },
        index: {
          idx_provider_operations_transaction_id: ['transaction_id'],
          idx_provider_operations_unsettled: ['settled_at', 'created_at'],
        },
      },
    );
    await s.createTable('sandbox_operations', [
      s.varchar('operation_key', 64, { isPrimary: true }),
      s.varchar('operation', 16),
      s.varchar('reference_number', 64),
      s.money('amount'),
      s.varchar('result', 16),
      s.timestamp('created_at'),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sandbox_operations');
    await q.dropTable('provider_operations');
  }
}
