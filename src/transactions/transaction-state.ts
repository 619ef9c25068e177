import { EVENT_NAMES, type EventName } from '../events/event-types';
export const TRANSACTION_STATES = [
  'created',
  'paid',
  'authorized',
  'captured',
  'failed',
  'error',
  'canceled',
  'expired',
  'voided',
  'refunded',
] as const;
export type TransactionState = (typeof TRANSACTION_STATES)[number];

/** States a customer may still pay in (contract §5); also the states in which an update is allowed. */
export const PAYABLE_STATES: readonly TransactionState[] = ['created', 'failed', 'error'];

/** States only a successful attempt leads to: the gateway took (or holds) the payment. */
export const SETTLED_STATES: readonly TransactionState[] = [
  'paid',
  'authorized',
  'captured',
  'voided',
  'refunded',
];

/** States after which the order_no may be reused (contract §4 `order_no`). */
export const ORDER_NO_RELEASING_STATES: readonly TransactionState[] = ['canceled', 'expired'];

export const isPayable = (state: TransactionState): boolean => PAYABLE_STATES.includes(state);

/** Events a customer can be notified of: every event a transaction emits. */
export const NOTIFICATION_EVENTS = EVENT_NAMES;
export type NotificationEvent = EventName;

/** The keys of `notifications`: the channels a customer is told through. */
export const NOTIFICATION_CHANNELS = ['email', 'sms'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** How the card of this payment is kept (contract §15): not at all, saved, or saved for merchant-initiated charges. */
export const PAYMENT_TYPES = ['one_off', 'save_card', 'auto_debit'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];
export const isSavingPaymentType = (type: PaymentType): boolean =>
  type === 'save_card' || type === 'auto_debit';

export const AGREEMENT_TYPES = ['recurring', 'installment', 'unscheduled'] as const;
export type AgreementType = (typeof AGREEMENT_TYPES)[number];
export const AMOUNT_VARIABILITIES = ['fixed', 'variable'] as const;
export type AmountVariability = (typeof AMOUNT_VARIABILITIES)[number];

export const TRANSACTION_TYPES = ['payment_request', 'e_commerce'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
