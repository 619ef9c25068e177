import type { PlannedDelivery } from '../../events/event-envelope';
import type { EventName } from '../../events/event-types';
import type { Transaction } from '../transaction.entity';

/** Which transports are configured (a channel without one is recorded as skipped, with why). */
export interface Transports {
  smtpUrl: string | null;
  smsProviderUrl: string | null;
}

/**
 * The deliveries an event of a transaction asks for (contract §6): its webhook, an e-mail to each
 * distinct address (customer and `email_recipients`) and an SMS to the customer, for the events
 * the transaction's `notifications` list per channel. `merchantOnly`: the webhook alone.
 */
export function planDeliveries(
  tx: Transaction,
  event: EventName,
  transports: Transports,
  merchantOnly = false,
): PlannedDelivery[] {
  const planned: PlannedDelivery[] = [];
  if (tx.webhookUrl) planned.push({ channel: 'webhook', target: tx.webhookUrl, skippedReason: null });
  if (merchantOnly) return planned;
  const wants = (list: string[] | undefined) => (list ?? []).includes(event);
  if (wants(tx.notifications?.email)) {
    const recipients = [...new Set([tx.customerEmail, ...(tx.emailRecipients ?? [])].filter(Boolean))];
    for (const target of recipients) {
      planned.push({
        channel: 'email',
        target,
        skippedReason: transports.smtpUrl ? null : 'No e-mail transport: SMTP_URL is not configured.',
      });
    }
  }
  if (wants(tx.notifications?.sms) && tx.customerPhone) {
    planned.push({
      channel: 'sms',
      target: tx.customerPhone,
      skippedReason: transports.smsProviderUrl
        ? null
        : 'No SMS transport: SMS_PROVIDER_URL is not configured.',
    });
  }
  return planned;
}
