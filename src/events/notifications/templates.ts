import type { EventName } from '../event-types';
import type { NotificationContext } from '../event.entity';

export interface Message {
  subject: string;
  text: string;
}

/** The values a template fills in. */
export interface TemplateValues {
  merchant: string;
  amount: string;
  currency: string;
  orderNo: string;
  checkoutUrl: string;
  attachmentUrl: string | null;
}

type Lines = Record<EventName, { subject: string; line: string }>;

const EN: Lines = {
  created: {
    subject: 'Payment request from {merchant}',
    line: '{merchant} requests a payment of {amount} {currency}{order}.',
  },
  paid: {
    subject: 'Payment received',
    line: 'Your payment of {amount} {currency}{order} to {merchant} was received. Thank you.',
  },
  authorized: {
    subject: 'Payment authorized',
    line: 'Your payment of {amount} {currency}{order} to {merchant} was authorized.',
  },
  captured: {
    subject: 'Payment captured',
    line: 'Your payment of {amount} {currency}{order} to {merchant} was captured.',
  },
  failed: {
    subject: 'Payment failed',
    line: 'Your payment of {amount} {currency}{order} to {merchant} did not go through. You may try again: {checkout}',
  },
  canceled: {
    subject: 'Payment canceled',
    line: 'The payment of {amount} {currency}{order} to {merchant} was canceled.',
  },
  expired: {
    subject: 'Payment request expired',
    line: 'The payment request of {amount} {currency}{order} from {merchant} has expired.',
  },
  voided: {
    subject: 'Payment voided',
    line: 'The authorization of {amount} {currency}{order} by {merchant} was voided.',
  },
  refunded: {
    subject: 'Payment refunded',
    line: '{merchant} refunded your payment of {amount} {currency}{order}.',
  },
};

const AR: Lines = {
  created: { subject: 'طلب دفع من {merchant}', line: 'يطلب {merchant} دفع مبلغ {amount} {currency}{order}.' },
  paid: {
    subject: 'تم استلام الدفعة',
    line: 'تم استلام دفعتك بمبلغ {amount} {currency}{order} إلى {merchant}. شكراً لك.',
  },
  authorized: {
    subject: 'تم تفويض الدفعة',
    line: 'تم تفويض دفعتك بمبلغ {amount} {currency}{order} إلى {merchant}.',
  },
  captured: {
    subject: 'تم تحصيل الدفعة',
    line: 'تم تحصيل دفعتك بمبلغ {amount} {currency}{order} إلى {merchant}.',
  },
  failed: {
    subject: 'فشلت عملية الدفع',
    line: 'لم تكتمل دفعتك بمبلغ {amount} {currency}{order} إلى {merchant}. يمكنك المحاولة مرة أخرى: {checkout}',
  },
  canceled: {
    subject: 'تم إلغاء الدفعة',
    line: 'تم إلغاء الدفعة بمبلغ {amount} {currency}{order} إلى {merchant}.',
  },
  expired: {
    subject: 'انتهت صلاحية طلب الدفع',
    line: 'انتهت صلاحية طلب الدفع بمبلغ {amount} {currency}{order} من {merchant}.',
  },
  voided: {
    subject: 'تم إبطال التفويض',
    line: 'تم إبطال تفويض المبلغ {amount} {currency}{order} من قبل {merchant}.',
  },
  refunded: {
    subject: 'تم استرداد الدفعة',
    line: 'قام {merchant} باسترداد دفعتك بمبلغ {amount} {currency}{order}.',
  },
};

const TEXTS = {
  en: {
    lines: EN,
    order: ' (order {orderNo})',
    pay: 'Pay here: {checkout}',
    attachment: 'Attachment: {attachment}',
  },
  ar: {
    lines: AR,
    order: ' (الطلب {orderNo})',
    pay: 'ادفع هنا: {checkout}',
    attachment: 'المرفق: {attachment}',
  },
} as const;

export const TEMPLATE_LANGUAGES = Object.keys(TEXTS) as (keyof typeof TEXTS)[];

/**
 * The notification of an event in the transaction's language (`en` when there is no template for
 * it). `created` carries the checkout link, and the attachment link when there is one.
 */
export function renderMessage(event: EventName, language: string, values: TemplateValues): Message {
  const texts = language in TEXTS ? TEXTS[language as keyof typeof TEXTS] : TEXTS.en;
  const fill = (template: string) =>
    template
      .replace('{order}', values.orderNo ? texts.order : '')
      .replace(/\{(\w+)\}/g, (_, name: string) => {
        const map: Record<string, string> = {
          merchant: values.merchant,
          amount: values.amount,
          currency: values.currency,
          orderNo: values.orderNo,
          checkout: values.checkoutUrl,
          attachment: values.attachmentUrl ?? '',
        };
        return map[name] ?? '';
      });
  const { subject, line } = texts.lines[event];
  const parts = [fill(line)];
  if (event === 'created') {
    parts.push(fill(texts.pay));
    if (values.attachmentUrl) parts.push(fill(texts.attachment));
  }
  return { subject: fill(subject), text: parts.join('\n') };
}

/** Template values from a recorded event's payload and context. */
export function templateValues(
  payload: Record<string, unknown>,
  context: NotificationContext,
): TemplateValues {
  const text = (v: unknown) =>
    typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v);
  return {
    merchant: context.merchant_name,
    amount: text(payload.amount),
    currency: text(payload.currency_code),
    orderNo: text(payload.order_no),
    checkoutUrl: context.checkout_url,
    attachmentUrl: context.attachment_url,
  };
}
