import { attachmentUrl } from '../attachments/attachments.service';
import { computeFee, formatAmount } from '../common/money/money';
import { formatDuration } from '../common/time/duration';
import type { Gateway } from '../gateways/gateway.entity';
import type { RouteDecisionView } from '../routing/route-decisions.repository';
import { gatewaySummary } from '../gateways/gateway-summary';
import type { PaymentMethodDto, TransactionDto } from './dto/transaction.dto';
import type { Transaction } from './transaction.entity';
import { checkoutPageUrl, checkoutUrl, paymentPageUrl, qrCodeUrl } from './transaction-urls';
import { SETTLED_STATES } from './transaction-state';

/** Everything a representation needs beside the row itself. */
export interface RepresentationContext {
  gateway: Gateway | null;
  /** A routing gateway's decisions for the transaction (contract §21); none otherwise. */
  routing?: readonly RouteDecisionView[];
  digits: number;
  publicBaseUrl: string;
}

/** The API representation of a transaction (contract §4 "Response representation"). */
export function toTransactionDto(tx: Transaction, ctx: RepresentationContext): TransactionDto {
  const money = (value: string) => formatAmount(value, ctx.digits);
  const amount = money(tx.amount);
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
    checkout_page_url: checkoutPageUrl(ctx.publicBaseUrl, tx.sessionId),
    qr_code_url: tx.qrCodeToken ? qrCodeUrl(ctx.publicBaseUrl, tx.qrCodeToken) : '',
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
    payment_type: tx.paymentType,
    settled_pg_code: SETTLED_STATES.includes(tx.state) ? tx.pgCode : '',
    gateway_code: tx.gatewayCode ?? '',
    routing: [...(ctx.routing ?? [])],
    agreement: tx.agreement,
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
    ...gatewaySummary(gateway, ctx.publicBaseUrl),
    amount: formatAmount(tx.amount, ctx.digits),
    currency_code: tx.currencyCode,
    fee: computeFee(tx.amount, gateway.feeFixed, gateway.feePercent, ctx.digits),
    redirect_url: paymentPageUrl(ctx.publicBaseUrl, tx.sessionId, gateway.code),
  };
}
