import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { MoneyColumn, TimestampColumn } from '../database/columns';

export const ATTEMPT_RESULTS = ['pending', 'success', 'declined', 'error'] as const;
export type AttemptResult = (typeof ATTEMPT_RESULTS)[number];

/**
 * One payment attempt on a transaction: the reference number, the gateway code, the result and the
 * gateway's response code. Never any card data.
 */
@Entity({ name: 'payment_attempts' })
export class PaymentAttempt {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'transaction_id', type: 'bigint' })
  transactionId: string;

  @Column({ name: 'reference_number', type: 'varchar', length: 64, unique: true })
  referenceNumber: string;

  @Column({ name: 'pg_code', type: 'varchar', length: 64 })
  pgCode: string;

  @Column({ type: 'varchar', length: 16 })
  result: AttemptResult;

  /** The gateway's own response code (sandbox: `00` approved, `05` declined, `96` error). */
  @Column({ name: 'response_code', type: 'varchar', length: 32 })
  responseCode: string;

  @MoneyColumn()
  amount: string;

  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  /**
   * The transaction's id while this attempt is running, NULL once it completed. Its unique key lets
   * only one attempt per transaction talk to the gateway at a time (on every replica).
   */
  @Column({ name: 'in_flight_transaction_id', type: 'bigint', nullable: true, unique: true })
  inFlightTransactionId: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'completed_at', nullable: true })
  completedAt: Date | null;
}
