import { MigrationInterface, QueryRunner } from 'typeorm';

/** Money columns are VARCHAR here so the exact decimal text survives (see database/columns.ts). */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE currencies (
      code varchar(3) PRIMARY KEY NOT NULL,
      digits integer NOT NULL,
      created_at datetime NOT NULL
    )`);
    await q.query(`CREATE TABLE gateways (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      code varchar(64) NOT NULL CONSTRAINT uq_gateways_code UNIQUE,
      name varchar(128) NOT NULL,
      pg varchar(64) NOT NULL,
      type varchar(16) NOT NULL,
      operation varchar(16) NOT NULL,
      currencies text NOT NULL,
      fee_fixed varchar(40) NOT NULL,
      fee_percent varchar(40) NOT NULL,
      icon varchar(200) NOT NULL,
      flow varchar(16) NOT NULL,
      require_customer_phone boolean NOT NULL,
      is_active boolean NOT NULL,
      created_at datetime NOT NULL,
      updated_at datetime NOT NULL
    )`);
    await q.query(`CREATE TABLE users (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      username varchar(150) NOT NULL CONSTRAINT uq_users_username UNIQUE,
      password_hash varchar(255) NOT NULL,
      gateway_codes text NOT NULL,
      is_admin boolean NOT NULL,
      is_active boolean NOT NULL,
      created_at datetime NOT NULL,
      updated_at datetime NOT NULL
    )`);
    await q.query(`CREATE TABLE api_keys (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      name varchar(100) NOT NULL,
      prefix varchar(8) NOT NULL CONSTRAINT uq_api_keys_prefix UNIQUE,
      secret_hash varchar(64) NOT NULL,
      created_at datetime NOT NULL,
      expires_at datetime NULL,
      revoked_at datetime NULL
    )`);
    await q.query(`CREATE TABLE admin_config (
      id integer PRIMARY KEY NOT NULL,
      auto_expire boolean NOT NULL,
      default_redirect_url varchar(200) NULL,
      merchant_name varchar(128) NOT NULL,
      webhook_signing_key varchar(255) NULL,
      updated_at datetime NOT NULL
    )`);
    await q.query(`CREATE TABLE transactions (
      id integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      session_id varchar(40) NOT NULL CONSTRAINT uq_transactions_session_id UNIQUE,
      state varchar(16) NOT NULL,
      version integer NOT NULL,
      type varchar(32) NOT NULL,
      amount varchar(40) NOT NULL,
      currency_code varchar(3) NOT NULL,
      pg_code varchar(64) NOT NULL,
      operation varchar(16) NOT NULL,
      mode varchar(32) NOT NULL,
      webhook_url varchar(200) NOT NULL,
      redirect_url varchar(200) NOT NULL,
      customer_id varchar(64) NOT NULL,
      customer_first_name varchar(64) NOT NULL,
      customer_last_name varchar(64) NOT NULL,
      customer_email varchar(128) NOT NULL,
      customer_phone varchar(12) NOT NULL,
      billing_address text NULL,
      order_no varchar(128) NULL,
      live_order_no varchar(128) NULL CONSTRAINT uq_transactions_live_order_no UNIQUE,
      notifications text NOT NULL,
      vendor_name varchar(64) NOT NULL,
      expiration_seconds integer NOT NULL,
      email_recipients text NOT NULL,
      extra text NOT NULL,
      product_type varchar(128) NOT NULL,
      language varchar(2) NOT NULL,
      shortify_attachment_url boolean NOT NULL,
      shortify_checkout_url boolean NOT NULL,
      checkout_short_url varchar(200) NOT NULL,
      attachment_short_url varchar(200) NOT NULL,
      initiator_id integer NULL,
      api_key_id integer NULL,
      remarks varchar(255) NULL,
      paid_amount varchar(40) NOT NULL,
      captured_amount varchar(40) NOT NULL,
      refunded_amount varchar(40) NOT NULL,
      voided_amount varchar(40) NOT NULL,
      created_at datetime NOT NULL,
      updated_at datetime NOT NULL,
      expires_at datetime NOT NULL
    )`);
    await q.query(`CREATE INDEX idx_transactions_state_expires_at ON transactions (state, expires_at)`);
    await q.query(`CREATE INDEX idx_transactions_order_no ON transactions (order_no)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['transactions', 'admin_config', 'api_keys', 'users', 'gateways', 'currencies']) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
