import { attachmentUrl } from '../attachments/attachments.service';
import { canonicalDecimal, computeFee, formatAmount } from '../common/money/money';
import { formatDuration, parseDuration } from '../common/time/duration';
import type { Gateway } from '../gateways/gateway.entity';
import type { CreateTransactionDto } from './dto/create-transaction.dto';
import type { PaymentMethodDto, TransactionDto } from './dto/transaction.dto';
import type { Notifications, Transaction } from './transaction.entity';

export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const REQUIRED_FIELDS: ReadonlySet<string> = new Set(['type', 'amount', 'currency_code', 'pg_codes']);

/** Everything a representation needs beside the row itself. */
export interface RepresentationContext {
  gateway: Gateway | null;
  digits: number;
  publicBaseUrl: string;
}

/** Public URLs of a transaction's pages (the pages themselves live in the checkout module). */
export const checkoutUrl = (base: string, sessionId: string): string =>
  `${base}/b/checkout/redirect/start/?session_id=${sessionId}`;
export const paymentPageUrl = (base: string, sessionId: string, pgCode: string): string =>
  `${base}/b/checkout/pay/${encodeURIComponent(pgCode)}/?session_id=${sessionId}`;
export const defaultGatewayIcon = (base: string, pg: string): string =>
  `${base}/b/checkout/static/icons/${encodeURIComponent(pg)}.svg`;

/** The stored transaction as request fields, to merge an update into (SPEC §4 "Update rules"). */
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
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** Applies a partial update to the stored fields: sent keys replace, `null` clears (SPEC §1). */
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

/** The columns a validated input sets (defaults for what was not sent). */
export function columnsFromInput(
  dto: CreateTransactionDto,
  operation: Transaction['operation'],
): Partial<Transaction> {
  const expirationSeconds = dto.expiration_time
    ? parseDuration(dto.expiration_time)!
    : DEFAULT_EXPIRATION_SECONDS;
  const notifications: Notifications = {};
  if (dto.notifications?.email) notifications.email = unique(dto.notifications.email);
  if (dto.notifications?.sms) notifications.sms = unique(dto.notifications.sms);
  return {
    type: dto.type,
    amount: canonicalDecimal(dto.amount),
    currencyCode: dto.currency_code,
    pgCode: dto.pg_codes[0],
    operation,
    mode: dto.mode ?? 'payment',
    webhookUrl: dto.webhook_url ?? '',
    redirectUrl: dto.redirect_url ?? '',
    customerId: dto.customer_id ?? '',
    customerFirstName: dto.customer_first_name ?? '',
    customerLastName: dto.customer_last_name ?? '',
    customerEmail: dto.customer_email ?? '',
    customerPhone: dto.customer_phone ?? '',
    billingAddress: dto.billing_address
      ? {
          line1: dto.billing_address.line1,
          ...(dto.billing_address.line2 !== undefined && dto.billing_address.line2 !== null
            ? { line2: dto.billing_address.line2 }
            : {}),
          city: dto.billing_address.city,
          state: dto.billing_address.state,
          country: dto.billing_address.country,
          postal_code: dto.billing_address.postal_code,
        }
      : null,
    orderNo: dto.order_no || null,
    notifications,
    vendorName: dto.vendor_name ?? '',
    expirationSeconds,
    emailRecipients: dto.email_recipients ?? [],
    extra: dto.extra ?? {},
    productType: dto.product_type ?? '',
    language: dto.language ?? 'en',
    shortifyAttachmentUrl: dto.shortify_attachment_url ?? false,
    shortifyCheckoutUrl: dto.shortify_checkout_url ?? false,
  };
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/** The API representation of a transaction (SPEC §4 "Response representation"). */
export function toTransactionDto(tx: Transaction, ctx: RepresentationContext): TransactionDto {
  const amount = formatAmount(tx.amount, ctx.digits);
  const money = (value: string) => formatAmount(value, ctx.digits);
  return {
    session_id: tx.sessionId,
    state: tx.state,
    type: tx.type,
    operation: tx.operation,
    amount,
    currency_code: tx.currencyCode,
    pg_codes: [tx.pgCode],
    payment_methods: ctx.gateway ? [toPaymentMethod(tx, ctx.gateway, ctx)] : [],
    checkout_url: checkoutUrl(ctx.publicBaseUrl, tx.sessionId),
    checkout_short_url: tx.checkoutShortUrl,
    attachment:
      tx.attachmentToken && tx.attachmentName
        ? attachmentUrl(ctx.publicBaseUrl, tx.attachmentToken, tx.attachmentName)
        : null,
    attachment_short_url: tx.attachmentShortUrl,
    mode: tx.mode,
    webhook_url: tx.webhookUrl,
    redirect_url: tx.redirectUrl,
    customer_id: tx.customerId,
    customer_first_name: tx.customerFirstName,
    customer_last_name: tx.customerLastName,
    customer_email: tx.customerEmail,
    customer_phone: tx.customerPhone,
    customer_address_city: tx.billingAddress?.city ?? '',
    billing_address: tx.billingAddress,
    order_no: tx.orderNo,
    notifications: tx.notifications,
    vendor_name: tx.vendorName,
    expiration_time: formatDuration(tx.expirationSeconds),
    email_recipients: tx.emailRecipients,
    extra: tx.extra,
    product_type: tx.productType,
    language: tx.language,
    shortify_attachment_url: tx.shortifyAttachmentUrl,
    shortify_checkout_url: tx.shortifyCheckoutUrl,
    initiator_id: tx.initiatorId,
    remarks: tx.remarks,
    paid_amount: money(tx.paidAmount),
    captured_amount: money(tx.capturedAmount),
    refunded_amount: money(tx.refundedAmount),
    voided_amount: money(tx.voidedAmount),
    created_at: tx.createdAt.toISOString(),
    updated_at: tx.updatedAt.toISOString(),
    expires_at: tx.expiresAt.toISOString(),
  };
}

function toPaymentMethod(tx: Transaction, gateway: Gateway, ctx: RepresentationContext): PaymentMethodDto {
  return {
    code: gateway.code,
    name: gateway.name,
    pg: gateway.pg,
    type: gateway.type,
    is_sandbox: gateway.type === 'sandbox',
    amount: formatAmount(tx.amount, ctx.digits),
    currency_code: tx.currencyCode,
    fee: computeFee(tx.amount, gateway.feeFixed, gateway.feePercent, ctx.digits),
    icon: gateway.icon || defaultGatewayIcon(ctx.publicBaseUrl, gateway.pg),
    flow: gateway.flow,
    redirect_url: paymentPageUrl(ctx.publicBaseUrl, tx.sessionId, gateway.code),
  };
}
