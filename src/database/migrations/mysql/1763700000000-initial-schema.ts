import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE currencies (
      code varchar(3) NOT NULL,
      digits int NOT NULL,
      created_at datetime(3) NOT NULL,
      PRIMARY KEY (code)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE gateways (
      id int NOT NULL AUTO_INCREMENT,
      code varchar(64) NOT NULL,
      name varchar(128) NOT NULL,
      pg varchar(64) NOT NULL,
      type varchar(16) NOT NULL,
      operation varchar(16) NOT NULL,
      currencies text NOT NULL,
      fee_fixed decimal(19,6) NOT NULL,
      fee_percent decimal(19,6) NOT NULL,
      icon varchar(200) NOT NULL,
      flow varchar(16) NOT NULL,
      require_customer_phone tinyint(1) NOT NULL,
      is_active tinyint(1) NOT NULL,
      created_at datetime(3) NOT NULL,
      updated_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_gateways_code (code)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE users (
      id int NOT NULL AUTO_INCREMENT,
      username varchar(150) NOT NULL,
      password_hash varchar(255) NOT NULL,
      gateway_codes text NOT NULL,
      is_admin tinyint(1) NOT NULL,
      is_active tinyint(1) NOT NULL,
      created_at datetime(3) NOT NULL,
      updated_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_users_username (username)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE api_keys (
      id int NOT NULL AUTO_INCREMENT,
      name varchar(100) NOT NULL,
      prefix varchar(8) NOT NULL,
      secret_hash varchar(64) NOT NULL,
      created_at datetime(3) NOT NULL,
      expires_at datetime(3) NULL,
      revoked_at datetime(3) NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_api_keys_prefix (prefix)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE admin_config (
      id int NOT NULL,
      auto_expire tinyint(1) NOT NULL,
      default_redirect_url varchar(200) NULL,
      merchant_name varchar(128) NOT NULL,
      webhook_signing_key varchar(255) NULL,
      updated_at datetime(3) NOT NULL,
      PRIMARY KEY (id)
    ) ${TABLE}`);
    await q.query(`CREATE TABLE transactions (
      id bigint NOT NULL AUTO_INCREMENT,
      session_id varchar(40) NOT NULL,
      state varchar(16) NOT NULL,
      version int NOT NULL,
      type varchar(32) NOT NULL,
      amount decimal(19,6) NOT NULL,
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
      live_order_no varchar(128) NULL,
      notifications text NOT NULL,
      vendor_name varchar(64) NOT NULL,
      expiration_seconds int NOT NULL,
      email_recipients text NOT NULL,
      extra text NOT NULL,
      product_type varchar(128) NOT NULL,
      language varchar(2) NOT NULL,
      shortify_attachment_url tinyint(1) NOT NULL,
      shortify_checkout_url tinyint(1) NOT NULL,
      checkout_short_url varchar(200) NOT NULL,
      attachment_short_url varchar(200) NOT NULL,
      initiator_id int NULL,
      api_key_id int NULL,
      remarks varchar(255) NULL,
      paid_amount decimal(19,6) NOT NULL,
      captured_amount decimal(19,6) NOT NULL,
      refunded_amount decimal(19,6) NOT NULL,
      voided_amount decimal(19,6) NOT NULL,
      created_at datetime(3) NOT NULL,
      updated_at datetime(3) NOT NULL,
      expires_at datetime(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_transactions_session_id (session_id),
      UNIQUE KEY uq_transactions_live_order_no (live_order_no),
      KEY idx_transactions_state_expires_at (state, expires_at),
      KEY idx_transactions_order_no (order_no)
    ) ${TABLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['transactions', 'admin_config', 'api_keys', 'users', 'gateways', 'currencies']) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
