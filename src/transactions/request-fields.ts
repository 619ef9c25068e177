import { canonicalDecimal } from '../common/money/money';
import { formatDuration } from '../common/time/duration';
import type { Transaction } from './transaction.entity';

/** Fields a create must send and an update may not clear (contract §4). */
export const REQUIRED_FIELDS: ReadonlySet<string> = new Set(['type', 'amount', 'currency_code', 'pg_codes']);

/** The stored transaction as request fields, to merge an update into (contract §4 "Update rules"). */
export function toRequestFields(tx: Transaction): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    type: tx.type,
    amount: canonicalDecimal(tx.amount),
    currency_code: tx.currencyCode,
    pg_codes: [tx.pgCode],
    shortify_attachment_url: tx.shortifyAttachmentUrl,
    shortify_checkout_url: tx.shortifyCheckoutUrl,
    mode: tx.mode,
    webhook_url: tx.webhookUrl || undefined,
    redirect_url: tx.redirectUrl || undefined,
    customer_id: tx.customerId,
    customer_first_name: tx.customerFirstName,
    customer_last_name: tx.customerLastName,
    customer_email: tx.customerEmail || undefined,
    customer_phone: tx.customerPhone || undefined,
    billing_address: tx.billingAddress ?? undefined,
    order_no: tx.orderNo ?? undefined,
    notifications: tx.notifications,
    vendor_name: tx.vendorName,
    expiration_time: formatDuration(tx.expirationSeconds),
    email_recipients: tx.emailRecipients,
    extra: tx.extra,
    product_type: tx.productType,
    language: tx.language,
    payment_type: tx.paymentType,
    agreement: tx.agreement ?? undefined,
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
