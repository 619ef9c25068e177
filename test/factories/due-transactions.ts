import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { bulkInsert } from '../../src/database/bulk-insert';
import { Transaction } from '../../src/transactions/transaction.entity';
import type { TransactionState } from '../../src/transactions/transaction-state';

export interface DueTransactionsOptions {
  /** The deadline of every row (default: one minute ago). */
  expiresAt?: Date;
  state?: TransactionState;
  pgCode?: string;
  currencyCode?: string;
  /** Rows per multi-row INSERT (SQLite allows ~32k bound values per statement: 40 columns × 500). */
  chunk?: number;
  /** Fields set on every row (e.g. notifications and customer_email, to get deliveries). */
  overrides?: Partial<Transaction>;
}

/** A transaction row as create would write it (sandbox gateway, KWD), with its deadline set. */
export function dueTransactionRow(expiresAt: Date, options: DueTransactionsOptions = {}): Transaction {
  const createdAt = new Date(expiresAt.getTime() - 3_600_000);
  return Object.assign(new Transaction(), {
    sessionId: randomBytes(20).toString('hex'),
    state: options.state ?? 'created',
    version: 1,
    type: 'e_commerce',
    amount: '86.000',
    currencyCode: options.currencyCode ?? 'KWD',
    pgCode: options.pgCode ?? 'sandbox',
    operation: 'purchase',
    mode: 'payment',
    webhookUrl: '',
    redirectUrl: '',
    customerId: '',
    customerFirstName: '',
    customerLastName: '',
    customerEmail: '',
    customerPhone: '',
    billingAddress: null,
    orderNo: null,
    liveOrderNo: null,
    notifications: {},
    vendorName: '',
    expirationSeconds: 3600,
    emailRecipients: [],
    extra: {},
    productType: '',
    language: 'en',
    shortifyAttachmentUrl: false,
    shortifyCheckoutUrl: false,
    paymentType: 'one_off',
    agreement: null,
    checkoutShortUrl: '',
    attachmentShortUrl: '',
    initiatorId: null,
    apiKeyId: null,
    remarks: null,
    paidAmount: '0',
    capturedAmount: '0',
    refundedAmount: '0',
    voidedAmount: '0',
    eventSequence: 0,
    createdAt,
    updatedAt: createdAt,
    expiresAt,
    ...options.overrides,
  } satisfies Partial<Transaction>);
}

/**
 * Inserts `count` transactions whose deadline has passed, set-based (multi-row INSERTs, no events):
 * the state a database is in when auto-expiry was off, or a replica was down, for a while.
 */
export async function insertDueTransactions(
  dataSource: DataSource,
  count: number,
  options: DueTransactionsOptions = {},
): Promise<void> {
  const expiresAt = options.expiresAt ?? new Date(Date.now() - 60_000);
  const chunk = options.chunk ?? 500;
  for (let done = 0; done < count; done += chunk) {
    const rows = Array.from({ length: Math.min(chunk, count - done) }, () =>
      dueTransactionRow(expiresAt, options),
    );
    await bulkInsert(dataSource.manager, Transaction, rows);
  }
}
