import { canonicalDecimal } from '../common/money/money';
import { formatDuration } from '../common/time/duration';
import type { Transaction } from './transaction.entity';

/** Fields a create must send and an update may not clear (contract §4). */
export const REQUIRED_FIELDS: ReadonlySet<string> = new Set(['type', 'amount', 'currency_code', 'pg_codes']);

/** Request fields whose column holds them exactly as sent: field → column. */
const STORED_AS_SENT = {
  shortify_attachment_url: 'shortifyAttachmentUrl',
  shortify_checkout_url: 'shortifyCheckoutUrl',
  mode: 'mode',
  customer_id: 'customerId',
  customer_first_name: 'customerFirstName',
  customer_last_name: 'customerLastName',
  notifications: 'notifications',
  vendor_name: 'vendorName',
  email_recipients: 'emailRecipients',
  extra: 'extra',
  product_type: 'productType',
  language: 'language',
  payment_type: 'paymentType',
} as const satisfies Record<string, keyof Transaction>;

/** The stored transaction as request fields, to merge an update into (contract §4 "Update rules"). */
export function toRequestFields(tx: Transaction): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    type: tx.type,
    amount: canonicalDecimal(tx.amount),
    currency_code: tx.currencyCode,
    pg_codes: [tx.pgCode],
    ...Object.fromEntries(Object.entries(STORED_AS_SENT).map(([field, column]) => [field, tx[column]])),
    // Empty columns stand for fields not sent.
    webhook_url: tx.webhookUrl || undefined,
    redirect_url: tx.redirectUrl || undefined,
    customer_email: tx.customerEmail || undefined,
    customer_phone: tx.customerPhone || undefined,
    billing_address: tx.billingAddress ?? undefined,
    order_no: tx.orderNo ?? undefined,
    agreement: tx.agreement ?? undefined,
    expiration_time: formatDuration(tx.expirationSeconds),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** Applies a partial update to the stored fields: sent keys replace, `null` clears (contract §1). */
export function mergeRequestFields(
  stored: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null && !REQUIRED_FIELDS.has(key)) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return merged;
}
