import type { TransactionState } from '../transactions/transaction-state';

/** The page languages (contract §9): English, and Arabic written right-to-left. */
export type PageLanguage = 'en' | 'ar';

/** A saved-card choice that is not one of the cards the payment page listed (contract §15). */
export const NOT_A_PAGE_CARD = 'Choose one of the saved cards shown on this page.';

export interface PageStrings {
  dir: 'ltr' | 'rtl';
  checkoutTitle: string;
  /** The payment page's title for a card gateway (card form or provider page). */
  paymentTitle: string;
  /** The payment page's title for a cash gateway (flow `offline`, contract §16). */
  cashPaymentTitle: string;
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
  /** Cash (contract §16): what happens after the customer follows the merchant's instructions. */
  cashNotice: string;
  backToCheckout: string;
  reference: string;
  /** The provider's own id of the payment (KNET's Payment ID: a certification item, K-064 §8). */
  providerPaymentId: string;
  tryAgain: string;
  states: Record<TransactionState, string>;
  notFound: string;
  formExpired: string;
  invalidCard: string;
  attemptInProgress: string;
  /** The page shown while a provider has not yet confirmed a payment (contract §20). */
  confirmingTitle: string;
  confirmingNotice: string;
  /** The page that loads a provider's payment script (contract §20, MPGS). */
  providerPageTitle: string;
  providerPageNotice: string;
  providerPageFailed: string;
  expiry: string;
  expiryHint: string;
  cvc: string;
  cvcHint: string;
  nameOnCard: string;
  savedCards: string;
  newCard: string;
  /** A redirect gateway: the new card is typed on the provider's page, after this one. */
  newCardOnProvider: string;
  continueToProvider: string;
  savedCardCvc: string;
  saveCard: string;
  saveCardRequired: string;
  /** The card checks' messages (src/cards/card-input.ts, English) in this language. */
  cardMessages: Record<string, string>;
}

const EN: PageStrings = {
  providerPageTitle: 'Opening the payment page',
  providerPageNotice: 'Taking you to the secure payment page of the payment provider…',
  providerPageFailed:
    'The payment page could not be opened. Go back to checkout and try again, or choose another payment method.',
  confirmingTitle: 'Confirming your payment',
  confirmingNotice:
    'Your payment is being confirmed with the payment provider. This page reloads itself until it is; please do not pay again.',
  dir: 'ltr',
  checkoutTitle: 'Checkout',
  paymentTitle: 'Card payment',
  cashPaymentTitle: 'Cash payment',
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
  cashNotice: 'Pay in cash as described. The merchant confirms the payment when they receive it.',
  backToCheckout: 'Back to checkout',
  reference: 'Reference number',
  providerPaymentId: 'Payment ID',
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
  expiry: 'Expiry date (MM/YY)',
  expiryHint: 'As printed on the card, e.g. 07/29.',
  cvc: 'Security code (CVC)',
  cvcHint: 'The 3 or 4 digits on the card.',
  nameOnCard: 'Name on card',
  savedCards: 'Your saved cards',
  newCard: 'A new card',
  newCardOnProvider: 'A new card, entered on the next page',
  continueToProvider: 'Continue',
  savedCardCvc: 'Security code (CVC) of the saved card',
  saveCard: 'Save this card for future payments',
  saveCardRequired: 'This card will be saved for future payments, as agreed with the merchant.',
  cardMessages: {},
};

const AR: PageStrings = {
  providerPageTitle: 'فتح صفحة الدفع',
  providerPageNotice: 'جارٍ نقلك إلى صفحة الدفع الآمنة لدى مزوّد الدفع…',
  providerPageFailed: 'تعذّر فتح صفحة الدفع. ارجع إلى صفحة الدفع وحاول مرة أخرى، أو اختر طريقة دفع أخرى.',
  confirmingTitle: 'جارٍ تأكيد الدفع',
  confirmingNotice:
    'يجري تأكيد دفعتك مع مزوّد الدفع. ستُعاد تحميل هذه الصفحة تلقائيًا حتى يتم ذلك؛ يُرجى عدم الدفع مرة أخرى.',
  dir: 'rtl',
  checkoutTitle: 'الدفع',
  paymentTitle: 'الدفع بالبطاقة',
  cashPaymentTitle: 'الدفع نقدًا',
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
  cashNotice: 'ادفع نقدًا كما هو موضح. يؤكد التاجر الدفع عند استلامه.',
  backToCheckout: 'العودة إلى صفحة الدفع',
  reference: 'الرقم المرجعي',
  providerPaymentId: 'رقم الدفع',
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
  expiry: 'تاريخ الانتهاء (MM/YY)',
  expiryHint: 'كما هو مطبوع على البطاقة، مثل 07/29.',
  cvc: 'رمز الأمان (CVC)',
  cvcHint: 'الأرقام الثلاثة أو الأربعة على البطاقة.',
  nameOnCard: 'الاسم على البطاقة',
  savedCards: 'بطاقاتك المحفوظة',
  newCard: 'بطاقة جديدة',
  newCardOnProvider: 'بطاقة جديدة، تُدخل في الصفحة التالية',
  continueToProvider: 'متابعة',
  savedCardCvc: 'رمز الأمان (CVC) للبطاقة المحفوظة',
  saveCard: 'احفظ هذه البطاقة للمدفوعات القادمة',
  saveCardRequired: 'سيتم حفظ هذه البطاقة للمدفوعات القادمة كما اتُّفق مع التاجر.',
  cardMessages: {
    'This field is required.': 'هذا الحقل مطلوب.',
    'Enter a valid card number.': 'أدخل رقم بطاقة صالحًا.',
    'Enter the expiry date as MM/YY.': 'أدخل تاريخ الانتهاء بالشكل MM/YY.',
    'This card has expired.': 'انتهت صلاحية هذه البطاقة.',
    'Enter the 3 or 4 digits of the security code.': 'أدخل الأرقام الثلاثة أو الأربعة لرمز الأمان.',
    'Ensure this field has no more than 64 characters.': 'يجب ألا يزيد هذا الحقل على 64 حرفًا.',
    'Not a valid string.': 'قيمة غير صالحة.',
    "No saved card with this token belongs to this transaction's customer and gateway.":
      'هذه البطاقة المحفوظة غير متاحة لهذا الدفع.',
    [NOT_A_PAGE_CARD]: 'اختر إحدى البطاقات المحفوظة المعروضة في هذه الصفحة.',
  },
};

export function pageLanguage(code: string | undefined): PageLanguage {
  return code === 'ar' ? 'ar' : 'en';
}

export function stringsFor(language: PageLanguage): PageStrings {
  return language === 'ar' ? AR : EN;
}
