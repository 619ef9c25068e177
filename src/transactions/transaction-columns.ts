import { canonicalDecimal } from '../common/money/money';
import { parseDuration } from '../common/time/duration';
import type { CreateTransactionDto } from './dto/create-transaction.dto';
import type { Agreement, Notifications, Transaction } from './transaction.entity';
import type { AgreementDto } from './dto/agreement.dto';
import { randomBase64url } from '../common/random/random-pool';

/** `expiration_time` when none is sent: one hour (contract §4). */
export const DEFAULT_EXPIRATION_SECONDS = 3600;

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
    paymentType: dto.payment_type ?? 'one_off',
    ...(dto.generate_qr_code ? { qrCodeToken: randomBase64url(24) } : {}),
    agreement: dto.agreement ? agreementColumn(dto.agreement) : null,
  };
}

/** The agreement as stored: the fields sent (nulls dropped), `type` defaulted. */
function agreementColumn(dto: AgreementDto): Agreement {
  const sent = Object.fromEntries(
    Object.entries(dto).filter(([, value]) => value !== undefined && value !== null && value !== ''),
  );
  return { ...sent, id: dto.id, type: dto.type ?? 'unscheduled' };
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
