import type { TransactionState } from '../transactions/transaction-state';

/** The page languages (SPEC §9): English, and Arabic written right-to-left. */
export type PageLanguage = 'en' | 'ar';

export interface PageStrings {
  dir: 'ltr' | 'rtl';
  checkoutTitle: string;
  paymentTitle: string;
  resultTitle: string;
  errorTitle: string;
  amount: string;
  fee: string;
  payBefore: string;
  order: string;
  paymentMethods: string;
  choose: (name: string) => string;
  attachment: string;
  cancel: string;
  cardNumber: string;
  cardHint: string;
  pay: string;
  sandboxNotice: string;
  backToCheckout: string;
  reference: string;
  tryAgain: string;
  states: Record<TransactionState, string>;
  notFound: string;
  formExpired: string;
  invalidCard: string;
  attemptInProgress: string;
}

const EN: PageStrings = {
  dir: 'ltr',
  checkoutTitle: 'Checkout',
  paymentTitle: 'Card payment',
  resultTitle: 'Payment status',
  errorTitle: 'Something went wrong',
  amount: 'Amount',
  fee: 'Fee',
  payBefore: 'Pay before',
  order: 'Order',
  paymentMethods: 'Payment methods',
  choose: (name) => `Pay with ${name}`,
  attachment: 'View the attachment',
  cancel: 'Cancel payment',
  cardNumber: 'Card number',
  cardHint: 'Digits only; spaces are fine.',
  pay: 'Pay',
  sandboxNotice: 'Sandbox: no real money moves. Use a test card.',
  backToCheckout: 'Back to checkout',
  reference: 'Reference number',
  tryAgain: 'Try again',
  states: {
    created: 'Waiting for payment.',
    paid: 'This payment is complete.',
    authorized: 'The payment has been authorized.',
    captured: 'The payment has been captured.',
    failed: 'The payment was declined. You can try again.',
    error: 'The payment could not be completed because of a gateway error. You can try again.',
    canceled: 'This payment was canceled.',
    expired: 'This payment link has expired.',
    voided: 'The authorization was voided.',
    refunded: 'This payment was refunded.',
  },
  notFound: 'This payment link does not exist.',
  formExpired: 'This form has expired. Go back, reload the page and try again.',
  invalidCard: 'Enter a valid card number.',
  attemptInProgress:
    'A payment for this transaction is already being processed. Wait a moment, then reload this page to see its result.',
};

const AR: PageStrings = {
  dir: 'rtl',
  checkoutTitle: 'الدفع',
  paymentTitle: 'الدفع بالبطاقة',
  resultTitle: 'حالة الدفع',
  errorTitle: 'حدث خطأ',
  amount: 'المبلغ',
  fee: 'الرسوم',
  payBefore: 'ادفع قبل',
  order: 'الطلب',
  paymentMethods: 'طرق الدفع',
  choose: (name) => `ادفع عبر ${name}`,
  attachment: 'عرض المرفق',
  cancel: 'إلغاء الدفع',
  cardNumber: 'رقم البطاقة',
  cardHint: 'أرقام فقط، ويمكن استخدام المسافات.',
  pay: 'ادفع',
  sandboxNotice: 'بيئة تجريبية: لا تتحرك أموال حقيقية. استخدم بطاقة اختبار.',
  backToCheckout: 'العودة إلى صفحة الدفع',
  reference: 'الرقم المرجعي',
  tryAgain: 'حاول مرة أخرى',
  states: {
    created: 'بانتظار الدفع.',
    paid: 'تم الدفع بنجاح.',
    authorized: 'تم تفويض الدفع.',
    captured: 'تم تحصيل الدفع.',
    failed: 'تم رفض الدفع. يمكنك المحاولة مرة أخرى.',
    error: 'تعذر إتمام الدفع بسبب خطأ في بوابة الدفع. يمكنك المحاولة مرة أخرى.',
    canceled: 'تم إلغاء هذا الدفع.',
    expired: 'انتهت صلاحية رابط الدفع هذا.',
    voided: 'تم إبطال التفويض.',
    refunded: 'تم استرداد هذا الدفع.',
  },
  notFound: 'رابط الدفع هذا غير موجود.',
  formExpired: 'انتهت صلاحية النموذج. ارجع وأعد تحميل الصفحة ثم حاول مرة أخرى.',
  invalidCard: 'أدخل رقم بطاقة صالحًا.',
  attemptInProgress: 'تجري معالجة دفعة لهذه المعاملة الآن. انتظر قليلًا ثم أعد تحميل هذه الصفحة لترى نتيجتها.',
};

export function pageLanguage(code: string | undefined): PageLanguage {
  return code === 'ar' ? 'ar' : 'en';
}

export function stringsFor(language: PageLanguage): PageStrings {
  return language === 'ar' ? AR : EN;
}
