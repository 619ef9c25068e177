/** Events a transaction emits (SPEC §5/§6): the new state's name; `error` emits `failed`. */
export const EVENT_NAMES = [
  'created',
  'paid',
  'authorized',
  'captured',
  'failed',
  'canceled',
  'expired',
  'voided',
  'refunded',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** What an event carries beside the transaction's own fields. */
export interface EventDetails {
  /** Operation events (capture, void, refund, cancel, expire). */
  operation?: string;
  /** The operation's amount (decimal text). */
  operationAmount?: string;
  /** The payment attempt's reference number. */
  referenceNumber?: string;
  /** `success` / `failed` / `error` of the attempt or operation. */
  result?: string;
}
