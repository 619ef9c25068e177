import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** Currencies, gateways, users, API keys, the admin settings row and the transactions. */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable('currencies', [
      s.varchar('code', 3, { isPrimary: true }),
      s.int('digits'),
      s.timestamp('created_at'),
    ]);
    await s.createTable(
      'gateways',
      [
        s.id('id', 'int'),
        s.varchar('code', 64),
        s.varchar('name', 128),
        s.varchar('pg', 64),
        s.varchar('type', 16),
        s.varchar('operation', 16),
        s.textColumn('currencies'),
        s.money('fee_fixed'),
        s.money('fee_percent'),
        s.varchar('icon', 200),
        s.varchar('flow', 16),
        s.flag('require_customer_phone'),
        s.flag('is_active'),
        s.timestamp('created_at'),
        s.timestamp('updated_at'),
      ],
      { unique: { uq_gateways_code: ['code'] } },
    );
    await s.createTable(
      'users',
      [
        s.id('id', 'int'),
        s.varchar('username', 150),
        s.varchar('password_hash', 255),
        s.textColumn('gateway_codes'),
        s.flag('is_admin'),
        s.flag('is_active'),
        s.timestamp('created_at'),
        s.timestamp('updated_at'),
      ],
      { unique: { uq_users_username: ['username'] } },
    );
    await s.createTable(
      'api_keys',
      [
        s.id('id', 'int'),
        s.varchar('name', 100),
        s.varchar('prefix', 8),
        s.varchar('secret_hash', 64),
        s.timestamp('created_at'),
        s.timestamp('expires_at', { isNullable: true }),
        s.timestamp('revoked_at', { isNullable: true }),
      ],
      { unique: { uq_api_keys_prefix: ['prefix'] } },
    );
    await s.createTable('admin_config', [
      s.int('id', { isPrimary: true }),
      s.flag('auto_expire'),
      s.varchar('default_redirect_url', 200, { isNullable: true }),
      s.varchar('merchant_name', 128),
      s.varchar('webhook_signing_key', 255, { isNullable: true }),
      s.timestamp('updated_at'),
    ]);
    await s.createTable(
      'transactions',
      [
        s.id(),
        s.varchar('session_id', 40),
        s.varchar('state', 16),
        s.int('version'),
        s.varchar('type', 32),
        s.money('amount'),
        s.varchar('currency_code', 3),
        s.varchar('pg_code', 64),
        s.varchar('operation', 16),
        s.varchar('mode', 32),
        s.varchar('webhook_url', 200),
        s.varchar('redirect_url', 200),
        s.varchar('customer_id', 64),
        s.varchar('customer_first_name', 64),
        s.varchar('customer_last_name', 64),
        s.varchar('customer_email', 128),
        s.varchar('customer_phone', 12),
        s.textColumn('billing_address', { isNullable: true }),
        s.varchar('order_no', 128, { isNullable: true }),
        s.varchar('live_order_no', 128, { isNullable: true }),
        s.textColumn('notifications'),
        s.varchar('vendor_name', 64),
        s.int('expiration_seconds'),
        s.textColumn('email_recipients'),
        s.textColumn('extra'),
        s.varchar('product_type', 128),
        s.varchar('language', 2),
        s.flag('shortify_attachment_url'),
        s.flag('shortify_checkout_url'),
        s.varchar('checkout_short_url', 200),
        s.varchar('attachment_short_url', 200),
        s.int('initiator_id', { isNullable: true }),
        s.int('api_key_id', { isNullable: true }),
        s.varchar('remarks', 255, { isNullable: true }),
        s.money('paid_amount'),
        s.money('captured_amount'),
        s.money('refunded_amount'),
        s.money('voided_amount'),
        s.timestamp('created_at'),
        s.timestamp('updated_at'),
        s.timestamp('expires_at'),
      ],
      {
        unique: {
          uq_transactions_session_id: ['session_id'],
          uq_transactions_live_order_no: ['live_order_no'],
        },
        index: {
          idx_transactions_state_expires_at: ['state', 'expires_at'],
          idx_transactions_order_no: ['order_no'],
        },
      },
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['transactions', 'admin_config', 'api_keys', 'users', 'gateways', 'currencies']) {
      await q.dropTable(table);
    }
  }
}
