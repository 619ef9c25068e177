/** Events a transaction emits (contract §5/§6): the new state's name; `error` emits `failed`. */
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
