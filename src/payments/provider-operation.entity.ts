import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { MoneyColumn, TimestampColumn } from '../database/columns';
import type { FollowUpOperation } from './adapters/gateway-adapter';

export const PROVIDER_OPERATION_STATES = ['pending', 'success', 'failed'] as const;
/** `pending` until the provider's answer is stored; then what it said. */
export type ProviderOperationState = (typeof PROVIDER_OPERATION_STATES)[number];

/**
 * One capture, void or refund carried out by a provider (contract §20 "Operations", §17), with the
 * durability of a payment attempt:
 *
 * 1. written `pending` and committed before the provider is called, with `open_transaction_id` set
 *    to its transaction (a unique key: one open operation per transaction);
 * 2. the provider's answer stored (`state`, `message`, `answered_at`) before anything else changes;
 * 3. settled (`settled_at`, `open_transaction_id` cleared) in the unit of work that changes the
 *    transaction and records its event.
 *
 * `operation_key` is what the provider gets as the operation's idempotency key, the same on every
 * retry (the reconciler, inquiry, the merchant repeating it), so it is never carried out twice.
 * A replica calling the provider holds a lease (`lease_token` until `leased_until`) so that two
 * never call it at once with the same key.
 */
@Entity({ name: 'provider_operations' })
export class ProviderOperation {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'transaction_id', type: 'bigint' })
  transactionId: string;

  /** The transaction's id while the operation is not settled; NULL after (unique: one at a time). */
  @Column({ name: 'open_transaction_id', type: 'bigint', nullable: true, unique: true })
  openTransactionId: string | null;

  @Column({ type: 'varchar', length: 16 })
  operation: FollowUpOperation;

  /** The operation's amount (decimal text); a void's is the authorized amount. */
  @MoneyColumn()
  amount: string;

  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  /** The gateway the transaction was paid through. */
  @Column({ name: 'pg_code', type: 'varchar', length: 64 })
  pgCode: string;

  /** The reference number of the successful attempt the operation applies to ('' when none). */
  @Column({ name: 'reference_number', type: 'varchar', length: 64 })
  referenceNumber: string;

  /** Sent to the provider as the operation's idempotency key (FollowUpInput.operationKey). */
  @Column({ name: 'operation_key', type: 'varchar', length: 64, unique: true })
  operationKey: string;

  /** The request's `Tracking-Key`, when it sent one: a repeat with it resumes this operation. */
  @Column({ name: 'tracking_key', type: 'varchar', length: 255, nullable: true })
  trackingKey: string | null;

  @Column({ type: 'varchar', length: 16 })
  state: ProviderOperationState;

  /** The provider's refusal, for the operations API's `detail` and the merchant's webhook. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  message: string | null;

  /** Who is calling the provider now (a random token), and until when. */
  @Column({ name: 'lease_token', type: 'varchar', length: 32, nullable: true })
  leaseToken: string | null;

  @TimestampColumn({ name: 'leased_until', nullable: true })
  leasedUntil: Date | null;

  /** When the operation was written, just before the provider was first called. */
  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  /** When the provider's answer was stored. */
  @TimestampColumn({ name: 'answered_at', nullable: true })
  answeredAt: Date | null;

  /** When the transaction was changed from the answer (or the failure closed). NULL: still open. */
  @TimestampColumn({ name: 'settled_at', nullable: true })
  settledAt: Date | null;
}
