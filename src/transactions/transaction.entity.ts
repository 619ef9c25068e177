import { LIMITS } from '../common/validation/limits';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, MoneyColumn, TimestampColumn } from '../database/columns';
import type { GatewayOperation } from '../gateways/gateway.entity';
import type {
  AgreementType,
  AmountVariability,
  NotificationChannel,
  NotificationEvent,
  PaymentType,
  TransactionState,
  TransactionType,
} from './transaction-state';

export interface BillingAddress {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  country: string;
  postal_code: string;
}

/** The agreement a saved card is charged under (contract §15), as sent (with its default type). */
export interface Agreement {
  id: string;
  type: AgreementType;
  frequency?: string;
  amount_variability?: AmountVariability;
  max_amount_per_cycle?: string;
  cycle_interval_days?: number;
  total_cycles?: number;
  start_date?: string;
  expiry_date?: string;
}

export type Notifications = Partial<Record<NotificationChannel, NotificationEvent[]>>;

/** A payment transaction (checkout session). Column names are the API's snake_case names. */
@Entity({ name: 'transactions' })
@Index('idx_transactions_state_expires_at', ['state', 'expiresAt'])
@Index('idx_transactions_order_no', ['orderNo'])
@Index('idx_transactions_created_at', ['createdAt'])
@Index('idx_transactions_state_created_at', ['state', 'createdAt'])
@Index('idx_transactions_customer_email_created_at', ['customerEmail', 'createdAt'])
export class Transaction {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'session_id', type: 'varchar', length: 40, unique: true })
  sessionId: string;

  @Column({ type: 'varchar', length: 16 })
  state: TransactionState;

  /** Row version: bumped by every write; exposed as the ETag. */
  @Column({ type: 'int' })
  version: number;

  @Column({ type: 'varchar', length: 32 })
  type: TransactionType;

  @MoneyColumn()
  amount: string;

  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  /** The one gateway code of `pg_codes`. */
  @Column({ name: 'pg_code', type: 'varchar', length: LIMITS.gatewayCode })
  pgCode: string;

  /**
   * The gateway that took the payment (contract §21): a routing gateway's member, or the
   * transaction's own gateway; null until a payment succeeds. Capture, void and refund go there.
   */
  @Column({ name: 'gateway_code', type: 'varchar', length: 64, nullable: true })
  gatewayCode: string | null;

  @Column({ type: 'varchar', length: 16 })
  operation: GatewayOperation;

  @Column({ type: 'varchar', length: LIMITS.mode })
  mode: string;

  @Column({ name: 'webhook_url', type: 'varchar', length: LIMITS.url })
  webhookUrl: string;

  @Column({ name: 'redirect_url', type: 'varchar', length: LIMITS.url })
  redirectUrl: string;

  @Column({ name: 'customer_id', type: 'varchar', length: LIMITS.customerId })
  customerId: string;

  @Column({ name: 'customer_first_name', type: 'varchar', length: LIMITS.customerName })
  customerFirstName: string;

  @Column({ name: 'customer_last_name', type: 'varchar', length: LIMITS.customerName })
  customerLastName: string;

  @Column({ name: 'customer_email', type: 'varchar', length: LIMITS.customerEmail })
  customerEmail: string;

  @Column({ name: 'customer_phone', type: 'varchar', length: LIMITS.customerPhone })
  customerPhone: string;

  @JsonColumn({ name: 'billing_address', nullable: true })
  billingAddress: BillingAddress | null;

  @Column({ name: 'order_no', type: 'varchar', length: LIMITS.orderNo, nullable: true })
  orderNo: string | null;

  /**
   * `order_no` while the transaction is live, NULL once canceled or expired. Its unique key makes
   * the database enforce "unique among live transactions" (NULLs never collide).
   */
  @Column({ name: 'live_order_no', type: 'varchar', length: LIMITS.orderNo, nullable: true, unique: true })
  liveOrderNo: string | null;

  @JsonColumn()
  notifications: Notifications;

  /** The secret part of `qr_code_url`; null until `generate_qr_code` is sent. */
  @Column({ name: 'qr_code_token', type: 'varchar', length: 64, nullable: true, unique: true })
  qrCodeToken: string | null;

  @Column({ name: 'payment_type', type: 'varchar', length: 16, default: 'one_off' })
  paymentType: PaymentType;

  @JsonColumn({ nullable: true })
  agreement: Agreement | null;

  @Column({ name: 'vendor_name', type: 'varchar', length: LIMITS.vendorName })
  vendorName: string;

  @Column({ name: 'expiration_seconds', type: 'int' })
  expirationSeconds: number;

  @JsonColumn({ name: 'email_recipients' })
  emailRecipients: string[];

  @JsonColumn()
  extra: Record<string, unknown>;

  @Column({ name: 'product_type', type: 'varchar', length: LIMITS.productType })
  productType: string;

  @Column({ type: 'varchar', length: LIMITS.language })
  language: string;

  @Column({ name: 'shortify_attachment_url', type: 'boolean' })
  shortifyAttachmentUrl: boolean;

  @Column({ name: 'shortify_checkout_url', type: 'boolean' })
  shortifyCheckoutUrl: boolean;

  @Column({ name: 'checkout_short_url', type: 'varchar', length: LIMITS.url })
  checkoutShortUrl: string;

  @Column({ name: 'attachment_short_url', type: 'varchar', length: LIMITS.url })
  attachmentShortUrl: string;

  /** The attachment's public token (its record and file belong to the attachments module). */
  @Column({ name: 'attachment_token', type: 'varchar', length: 64, nullable: true })
  attachmentToken: string | null;

  /** The attachment's sanitised file name, the last segment of its URL. */
  @Column({ name: 'attachment_name', type: 'varchar', length: 128, nullable: true })
  attachmentName: string | null;

  /** The Basic user who created it; null when created with an API key. */
  @Column({ name: 'initiator_id', type: 'int', nullable: true })
  initiatorId: number | null;

  @Column({ name: 'api_key_id', type: 'int', nullable: true })
  apiKeyId: number | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  remarks: string | null;

  @MoneyColumn({ name: 'paid_amount' })
  paidAmount: string;

  @MoneyColumn({ name: 'captured_amount' })
  capturedAmount: string;

  @MoneyColumn({ name: 'refunded_amount' })
  refundedAmount: string;

  @MoneyColumn({ name: 'voided_amount' })
  voidedAmount: string;

  /**
   * Set by the `delete` operation (contract §16): the merchant API and the pages no longer find it;
   * the row and its events stay for admins.
   */
  @TimestampColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;

  /** `created_at + expiration_time`: the deadline after which the transaction is no longer payable. */
  @TimestampColumn({ name: 'expires_at' })
  expiresAt: Date;

  /**
   * The reference number of the payment attempt now at the gateway, NULL otherwise (contract §17).
   * Set by a conditional UPDATE before the gateway is called, cleared when the attempt is
   * settled: while set, no other attempt, update, cancel or expiry can change the transaction.
   */
  @Column({ name: 'attempt_in_flight', type: 'varchar', length: 64, nullable: true })
  attemptInFlight: string | null;

  /**
   * Until when a provider session the customer left may still take money (contract §20.1): the
   * transaction is not expired before then (by the sweep or a pay attempt), so a payment taken on
   * that session late is recorded as paid. Null when no left session is being watched.
   */
  @TimestampColumn({ name: 'watched_until', nullable: true })
  watchedUntil: Date | null;

  /** The number of the transaction's last event (contract §6 `sequence`): bumped by each one recorded. */
  @Column({ name: 'event_sequence', type: 'int', default: 0 })
  eventSequence: number;
}

/**
 * The gateway a transaction's payment was taken on (contract §21): a routing gateway's member, or
 * the transaction's own gateway (also for payments taken before `gateway_code` existed). Capture,
 * void and refund go there.
 */
export const takenOnGateway = (tx: Pick<Transaction, 'gatewayCode' | 'pgCode'>): string =>
  tx.gatewayCode ?? tx.pgCode;
