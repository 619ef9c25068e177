import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, MoneyColumn, TimestampColumn } from '../database/columns';

/**
 * The card of an attempt as it may be kept (contract §15): enough to save it once the gateway has
 * answered — also when the reconciler settles the attempt later — and never the number or CVC.
 */
export interface AttemptCard {
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  nameOnCard: string;
  /** Keyed hash of the number (typed cards only). */
  fingerprint?: string;
  /** Save the card when the attempt succeeds. */
  save: boolean;
  /** The saved card this attempt charges (auto-debit, or picked on the page). */
  savedCardToken?: string;
  /** The customer picked the saved card on our page (a customer-initiated charge, contract §20.1). */
  cardholderPresent?: boolean;
}

export const ATTEMPT_RESULTS = ['pending', 'success', 'declined', 'error'] as const;
export type AttemptResult = (typeof ATTEMPT_RESULTS)[number];

/**
 * One payment attempt on a transaction: the reference number, the gateway code, the result and the
 * gateway's response code; of the card only what may be kept (AttemptCard). Its life (contract §17): written `pending` before the
 * gateway is called; the answer stored as soon as it arrives (`completed_at`); then the
 * transaction settled from it (`settled_at`) — each step durable before the next, so a crash at
 * any point leaves something the reconciler can finish.
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

  /** The gateway's token of the card, when it saved it (with the answer). */
  @Column({ name: 'gateway_token', type: 'varchar', length: 128, nullable: true })
  gatewayToken: string | null;

  @JsonColumn({ nullable: true })
  card: AttemptCard | null;

  /**
   * What a redirect provider keeps of this attempt (contract §20): its session id and URL, written
   * as soon as the provider answers the start call; the PaymentIntent or order id once known.
   */
  @JsonColumn({ name: 'provider_data', nullable: true })
  provider: Record<string, string> | null;

  @MoneyColumn()
  amount: string;

  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  /** When the attempt was written, just before the gateway was called. */
  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  /** When the gateway's answer was stored (`result` is then no longer `pending`). */
  @TimestampColumn({ name: 'completed_at', nullable: true })
  completedAt: Date | null;

  /**
   * When the transaction was settled from the answer (its state changed, its event recorded) or
   * freed from an attempt the gateway never saw. NULL: the reconciler still has to finish it.
   */
  @TimestampColumn({ name: 'settled_at', nullable: true })
  settledAt: Date | null;

  /**
   * When the customer left this attempt (contract §20.1: a cancel or error link, a decline the
   * provider's page lets them retry) while its provider session may still take money: it no longer
   * holds the transaction (the customer may start again), and it stays unsettled, watched by the
   * reconciler, until the provider's word is final. A payment taken on it later is recorded paid.
   */
  @TimestampColumn({ name: 'left_at', nullable: true })
  leftAt: Date | null;

  /**
   * How the attempt ended against its transaction, once settled (contract §20.1 reconciliation):
   * `matched`, or `mismatch` (the provider took money the transaction does not show, or the
   * reverse: a person must look). Null while unsettled, and for attempts settled before it existed.
   */
  @Column({ type: 'varchar', length: 16, nullable: true })
  reconciliation: AttemptReconciliation | null;
}

export type AttemptReconciliation = 'matched' | 'mismatch';

/** The columns an attempt takes from its transaction when it is written: the amount stored now. */
export function attemptOn(
  referenceNumber: string,
  tx: { id: string; pgCode: string; amount: string; currencyCode: string },
  rest: Pick<PaymentAttempt, 'result' | 'responseCode' | 'card' | 'createdAt' | 'completedAt' | 'settledAt'>,
): PaymentAttempt {
  return Object.assign(new PaymentAttempt(), {
    referenceNumber,
    transactionId: tx.id,
    pgCode: tx.pgCode,
    amount: tx.amount,
    currencyCode: tx.currencyCode,
    gatewayToken: null,
    provider: null,
    leftAt: null,
    reconciliation: null,
    ...rest,
  } satisfies Partial<PaymentAttempt>);
}
