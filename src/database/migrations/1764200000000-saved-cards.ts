import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * Saved cards (contract §15): the cards table (never a number or CVC), what an attempt keeps of its
 * card and the gateway token it got, and the sandbox gateway's vault and token ledger.
 */
export class SavedCards1764200000000 implements MigrationInterface {
  name = 'SavedCards1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'cards',
      [
        s.id(),
        s.varchar('token', 64),
        s.varchar('customer_id', 64),
        s.varchar('pg_code', 64),
        s.varchar('brand', 32),
        s.varchar('name_on_card', 64),
        s.varchar('last4', 4),
        s.int('expiry_month'),
        s.int('expiry_year'),
        s.varchar('fingerprint', 64),
        s.varchar('gateway_token', 128),
        s.textColumn('agreements'),
        s.flag('is_preferred'),
        s.timestamp('created_at'),
        s.timestamp('updated_at'),
      ],
      {
        unique: {
          uq_cards_token: ['token'],
          uq_cards_customer_gateway_fingerprint: ['customer_id', 'pg_code', 'fingerprint'],
        },
      },
    );
    await s.addColumns('payment_attempts', [
      s.varchar('gateway_token', 128, { isNullable: true }),
      s.textColumn('card', { isNullable: true }),
    ]);
    await s.addColumns('sandbox_charges', [s.varchar('gateway_token', 128, { isNullable: true })]);
    await s.createTable('sandbox_tokens', [
      { ...s.varchar('token', 128), isPrimary: true },
      s.varchar('later_result', 16),
      s.timestamp('created_at'),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sandbox_tokens');
    await q.dropColumn('sandbox_charges', 'gateway_token');
    await q.dropColumn('payment_attempts', 'card');
    await q.dropColumn('payment_attempts', 'gateway_token');
    await q.dropTable('cards');
  }
}
