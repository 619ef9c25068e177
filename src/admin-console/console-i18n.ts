import type { PageLanguage } from '../checkout/i18n';
import { html, type SafeHtml } from '../common/html/html';
import type { DeliveryStatus } from '../events/delivery.entity';
import type { AttemptResult } from '../payments/payment-attempt.entity';
import { TRANSACTION_STATES, type TransactionState } from '../transactions/transaction-state';

/** The admin console's words (contract §19): English, and Arabic written right-to-left. */
export interface ConsoleStrings {
  dir: 'ltr' | 'rtl';
  console: string;
  otherLanguage: { code: PageLanguage; label: string };
  signInTitle: string;
  username: string;
  password: string;
  signIn: string;
  signOut: string;
  invalidCredentials: string;
  notAdmin: string;
  throttled: (seconds: number) => string;
  formExpired: string;
  nav: {
    transactions: string;
    config: string;
    apiKeys: string;
    gateways: string;
    currencies: string;
    users: string;
  };
  /** Field labels of the resource forms, by API field name. */
  labels: Record<string, string>;
  add: string;
  edit: string;
  remove: string;
  removed: string;
  gatewayDeactivated: string;
  /** The legend of a driver's settings on the gateway form. */
  driverSettings: (driver: string) => string;
  secretSet: string;
  secretUnset: string;
  yes: string;
  no: string;
  listHint: string;
  passwordKeepHint: string;
  configTitle: string;
  autoExpire: string;
  defaultRedirectUrl: string;
  merchantName: string;
  signingKey: string;
  signingKeyHint: (state: 'database' | 'environment' | 'none') => string;
  clearSigningKey: string;
  save: string;
  saved: string;
  fixErrors: string;
  apiKeysTitle: string;
  name: string;
  expiresAt: string;
  expiresAtHint: string;
  createKey: string;
  newKey: string;
  prefix: string;
  createdAt: string;
  status: string;
  active: string;
  /** A key's status with its date (the date is markup: a `<time>` that reads left-to-right). */
  revokedOn: (when: SafeHtml) => SafeHtml;
  expiredOn: (when: SafeHtml) => SafeHtml;
  revoke: string;
  revoked: string;
  none: string;
  transactionsTitle: string;
  state: string;
  anyState: string;
  orderNo: string;
  customerEmail: string;
  createdAfter: string;
  createdBefore: string;
  search: string;
  olderPage: string;
  amount: string;
  noTransactions: string;
  deleted: string;
  transactionTitle: string;
  fields: string;
  history: string;
  attempts: string;
  /** A routing gateway's decisions (contract §21). */
  routing: string;
  routeOutcomes: Record<'started' | 'unavailable' | 'skipped_unhealthy', string>;
  /** A delivery's tries (not payment attempts). */
  tries: string;
  events: string;
  deliveries: string;
  channel: string;
  target: string;
  lastError: string;
  result: string;
  card: string;
  redeliver: string;
  redelivered: string;
  noWebhookUrl: string;
  notFound: string;
  /** A transaction's state (and the event of the same name) as the console shows it. */
  states: Record<TransactionState, string>;
  /** A payment attempt's result. */
  attemptResults: Record<AttemptResult, string>;
  /** A webhook or e-mail delivery's status. */
  deliveryStatuses: Record<DeliveryStatus, string>;
  /** The transaction page's field names, by API field name. */
  transactionFields: Record<string, string>;
}

const EN: ConsoleStrings = {
  dir: 'ltr',
  console: 'Checkout admin',
  otherLanguage: { code: 'ar', label: 'العربية' },
  signInTitle: 'Sign in',
  username: 'Username',
  password: 'Password',
  signIn: 'Sign in',
  signOut: 'Sign out',
  invalidCredentials: 'Wrong username or password.',
  notAdmin: 'This user is not an administrator.',
  throttled: (s) => `Too many failed attempts. Try again in ${s} seconds.`,
  formExpired: 'The form has expired or did not come from this site. Please try again.',
  nav: {
    transactions: 'Transactions',
    config: 'Configuration',
    apiKeys: 'API keys',
    gateways: 'Gateways',
    currencies: 'Currencies',
    users: 'Users',
  },
  labels: {
    code: 'Code',
    digits: 'Digits',
    name: 'Name',
    pg: 'Gateway driver (pg)',
    type: 'Type',
    operation: 'Operation',
    currencies: 'Currencies',
    fee_fixed: 'Fixed fee',
    fee_percent: 'Fee percent',
    icon: 'Icon URL',
    flow: 'Flow',
    require_customer_phone: 'Require the customer’s phone',
    is_active: 'Active',
    tokenizable: 'Can save cards',
    instructions: 'Instructions for the customer',
    username: 'Username',
    password: 'Password',
    gateway_codes: 'Gateway codes',
    is_admin: 'Administrator',
  },
  add: 'Add',
  edit: 'Edit',
  remove: 'Delete',
  removed: 'Deleted.',
  gatewayDeactivated: 'Transactions used it, so it was deactivated instead of deleted.',
  driverSettings: (driver) => `${driver} settings`,
  secretSet: 'Set; leave empty to keep it.',
  secretUnset: 'Not set.',
  yes: 'yes',
  no: 'no',
  listHint: 'Separate several with commas.',
  passwordKeepHint: 'Leave empty to keep the current password.',
  configTitle: 'Configuration',
  autoExpire: 'Expire transactions automatically',
  defaultRedirectUrl: 'Default redirect URL',
  merchantName: 'Merchant name',
  signingKey: 'Webhook signing key',
  signingKeyHint: (state) =>
    state === 'database'
      ? 'A key is set here. Leave empty to keep it; it is never shown.'
      : state === 'environment'
        ? 'The key of WEBHOOK_SIGNING_KEY is used. Enter one to replace it here.'
        : 'No key: webhooks go out unsigned. Enter one (16–255 characters).',
  clearSigningKey: 'Remove the stored key',
  save: 'Save',
  saved: 'Saved.',
  fixErrors: 'Nothing was saved: correct the fields marked below.',
  apiKeysTitle: 'API keys',
  name: 'Name',
  expiresAt: 'Expires at',
  expiresAtHint: 'Optional. ISO 8601 with a time zone, e.g. 2030-01-31T12:00:00Z.',
  createKey: 'Create key',
  newKey: 'The new API key. Copy it now: it is not shown again.',
  prefix: 'Prefix',
  createdAt: 'Created',
  status: 'Status',
  active: 'Active',
  revokedOn: (when) => html`Revoked ${when}`,
  expiredOn: (when) => html`Expired ${when}`,
  revoke: 'Revoke',
  revoked: 'The key is revoked.',
  none: 'None yet.',
  transactionsTitle: 'Transactions',
  state: 'State',
  anyState: 'Any state',
  orderNo: 'Order number',
  customerEmail: 'Customer e-mail',
  createdAfter: 'Created from',
  createdBefore: 'Created before',
  search: 'Search',
  olderPage: 'Older transactions',
  amount: 'Amount',
  noTransactions: 'No transaction matches.',
  deleted: 'deleted',
  transactionTitle: 'Transaction',
  fields: 'Fields',
  history: 'State history',
  attempts: 'Payment attempts',
  routing: 'Routing',
  routeOutcomes: {
    started: 'started',
    unavailable: 'unavailable (failed over)',
    skipped_unhealthy: 'skipped (unhealthy)',
  },
  tries: 'Attempts',
  events: 'Events and deliveries',
  deliveries: 'Deliveries',
  channel: 'Channel',
  target: 'To',
  lastError: 'Last error',
  result: 'Result',
  card: 'Card',
  redeliver: 'Redeliver',
  redelivered: 'A new delivery of the webhook is queued.',
  noWebhookUrl: 'The transaction has no webhook URL to deliver to.',
  notFound: 'Not found.',
  // English shows the API's own names: what the API, webhooks and the docs call them.
  states: Object.fromEntries(TRANSACTION_STATES.map((state) => [state, state])) as Record<
    TransactionState,
    string
  >,
  attemptResults: { pending: 'pending', success: 'success', declined: 'declined', error: 'error' },
  deliveryStatuses: { pending: 'pending', delivered: 'delivered', failed: 'failed', skipped: 'skipped' },
  transactionFields: {},
};

const AR: ConsoleStrings = {
  dir: 'rtl',
  console: 'إدارة الدفع',
  otherLanguage: { code: 'en', label: 'English' },
  signInTitle: 'تسجيل الدخول',
  username: 'اسم المستخدم',
  password: 'كلمة المرور',
  signIn: 'دخول',
  signOut: 'تسجيل الخروج',
  invalidCredentials: 'اسم المستخدم أو كلمة المرور غير صحيحة.',
  notAdmin: 'هذا المستخدم ليس مسؤولاً.',
  throttled: (s) => `محاولات فاشلة كثيرة. حاول مرة أخرى بعد ${s} ثانية.`,
  formExpired: 'انتهت صلاحية النموذج أو لم يأتِ من هذا الموقع. حاول مرة أخرى.',
  nav: {
    transactions: 'المعاملات',
    config: 'الإعدادات',
    apiKeys: 'مفاتيح API',
    gateways: 'بوابات الدفع',
    currencies: 'العملات',
    users: 'المستخدمون',
  },
  labels: {
    code: 'الرمز',
    digits: 'الخانات العشرية',
    name: 'الاسم',
    pg: 'مشغّل البوابة (pg)',
    type: 'النوع',
    operation: 'العملية',
    currencies: 'العملات',
    fee_fixed: 'رسوم ثابتة',
    fee_percent: 'نسبة الرسوم',
    icon: 'رابط الأيقونة',
    flow: 'التدفق',
    require_customer_phone: 'طلب هاتف العميل',
    is_active: 'نشط',
    tokenizable: 'يمكن حفظ البطاقات',
    instructions: 'تعليمات للعميل',
    username: 'اسم المستخدم',
    password: 'كلمة المرور',
    gateway_codes: 'رموز البوابات',
    is_admin: 'مسؤول',
  },
  add: 'إضافة',
  edit: 'تعديل',
  remove: 'حذف',
  removed: 'تم الحذف.',
  gatewayDeactivated: 'استُخدمت في معاملات، لذا عُطّلت بدلاً من حذفها.',
  driverSettings: (driver) => `إعدادات ${driver}`,
  secretSet: 'مُعيَّن؛ اتركه فارغاً للإبقاء عليه.',
  secretUnset: 'غير مُعيَّن.',
  yes: 'نعم',
  no: 'لا',
  listHint: 'افصل بين القيم بفواصل.',
  passwordKeepHint: 'اتركها فارغة للإبقاء على كلمة المرور الحالية.',
  configTitle: 'الإعدادات',
  autoExpire: 'إنهاء صلاحية المعاملات تلقائياً',
  defaultRedirectUrl: 'رابط إعادة التوجيه الافتراضي',
  merchantName: 'اسم التاجر',
  signingKey: 'مفتاح توقيع الويب هوك',
  signingKeyHint: (state) =>
    state === 'database'
      ? 'يوجد مفتاح محفوظ. اتركه فارغاً للإبقاء عليه؛ لا يُعرض أبداً.'
      : state === 'environment'
        ? 'يُستخدم مفتاح WEBHOOK_SIGNING_KEY. أدخل مفتاحاً لاستبداله هنا.'
        : 'لا يوجد مفتاح: تُرسل الويب هوك دون توقيع. أدخل مفتاحاً (16–255 حرفاً).',
  clearSigningKey: 'حذف المفتاح المحفوظ',
  save: 'حفظ',
  saved: 'تم الحفظ.',
  fixErrors: 'لم يُحفظ شيء: صحّح الحقول المشار إليها أدناه.',
  apiKeysTitle: 'مفاتيح API',
  name: 'الاسم',
  expiresAt: 'ينتهي في',
  expiresAtHint: 'اختياري. بصيغة ISO 8601 مع المنطقة الزمنية، مثل 2030-01-31T12:00:00Z.',
  createKey: 'إنشاء مفتاح',
  newKey: 'مفتاح API الجديد. انسخه الآن: لن يُعرض مرة أخرى.',
  prefix: 'البادئة',
  createdAt: 'أُنشئ',
  status: 'الحالة',
  active: 'نشط',
  revokedOn: (when) => html`أُلغي ${when}`,
  expiredOn: (when) => html`انتهى ${when}`,
  revoke: 'إلغاء',
  revoked: 'تم إلغاء المفتاح.',
  none: 'لا شيء بعد.',
  transactionsTitle: 'المعاملات',
  state: 'الحالة',
  anyState: 'أي حالة',
  orderNo: 'رقم الطلب',
  customerEmail: 'بريد العميل',
  createdAfter: 'أُنشئت من',
  createdBefore: 'أُنشئت قبل',
  search: 'بحث',
  olderPage: 'معاملات أقدم',
  amount: 'المبلغ',
  noTransactions: 'لا توجد معاملة مطابقة.',
  deleted: 'محذوفة',
  transactionTitle: 'المعاملة',
  fields: 'الحقول',
  history: 'سجل الحالات',
  attempts: 'محاولات الدفع',
  routing: 'التوجيه',
  routeOutcomes: {
    started: 'بدأت',
    unavailable: 'غير متاحة (تم التحويل)',
    skipped_unhealthy: 'تم تخطيها (غير سليمة)',
  },
  tries: 'المحاولات',
  events: 'الأحداث وعمليات التسليم',
  deliveries: 'عمليات التسليم',
  channel: 'القناة',
  target: 'إلى',
  lastError: 'آخر خطأ',
  result: 'النتيجة',
  card: 'البطاقة',
  redeliver: 'إعادة الإرسال',
  redelivered: 'تمت جدولة تسليم جديد للويب هوك.',
  noWebhookUrl: 'لا يوجد رابط ويب هوك لهذه المعاملة.',
  notFound: 'غير موجود.',
  states: {
    created: 'أُنشئت',
    paid: 'مدفوعة',
    authorized: 'مفوَّضة',
    captured: 'محصَّلة',
    failed: 'فاشلة',
    error: 'خطأ',
    canceled: 'ملغاة',
    expired: 'منتهية الصلاحية',
    voided: 'مُبطَلة',
    refunded: 'مستردّة',
  },
  attemptResults: { pending: 'قيد المعالجة', success: 'ناجحة', declined: 'مرفوضة', error: 'خطأ' },
  deliveryStatuses: { pending: 'قيد الانتظار', delivered: 'تم التسليم', failed: 'فشل', skipped: 'تم التخطي' },
  transactionFields: {
    session_id: 'معرّف الجلسة',
    state: 'الحالة',
    amount: 'المبلغ',
    currency_code: 'العملة',
    pg_codes: 'رموز البوابات',
    gateway_code: 'البوابة التي استلمت الدفع',
    operation: 'العملية',
    type: 'نوع الدفع',
    order_no: 'رقم الطلب',
    customer_email: 'بريد العميل',
    customer_phone: 'هاتف العميل',
    paid_amount: 'المبلغ المدفوع',
    captured_amount: 'المبلغ المحصَّل',
    refunded_amount: 'المبلغ المسترد',
    voided_amount: 'المبلغ المُبطَل',
    webhook_url: 'رابط الويب هوك',
    redirect_url: 'رابط إعادة التوجيه',
    created_at: 'أُنشئت في',
    updated_at: 'حُدّثت في',
    expires_at: 'تنتهي في',
    deleted_at: 'حُذفت في',
  },
};

export const consoleStrings = (language: PageLanguage): ConsoleStrings => (language === 'ar' ? AR : EN);
