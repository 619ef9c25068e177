import type { EventName } from '../events/event-types';
import {
  ORDER_NO_RELEASING_STATES,
  PAYABLE_STATES,
  TRANSACTION_STATES,
  type TransactionState,
} from './transaction-state';

/**
 * The payment state machine (contract §5), as data. Every path that changes a transaction's state
 * (checkout page, test helper, operations API, expiry job) goes through {@link TransitionService},
 * which reads this table: nothing else decides whether a change is allowed.
 */

/** What happens to a transaction. */
export const TRIGGERS = [
  /** A successful attempt through a `purchase` gateway. */
  'attempt_paid',
  /** A successful attempt through an `authorize` gateway. */
  'attempt_authorized',
  /** The gateway declined the attempt. */
  'attempt_declined',
  /** The gateway failed during the attempt. */
  'attempt_error',
  /** `cancel` operation, or the customer cancels on the checkout page. */
  'cancel',
  /** Deadline passed (expiry job or a pay attempt), or the `expire` operation. */
  'expire',
  /** `capture` operation (full or partial) of an authorization. */
  'capture',
  /** `void` operation of an authorization. */
  'void',
  /** A `refund` operation that reaches the full paid / captured amount. */
  'refund_full',
  /** A `refund` operation below the rest: the state stays, `refunded` is still emitted. */
  'refund_partial',
] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** `same`: the state does not change (a partial refund). */
export type TargetState = TransactionState | 'same';

export interface TransitionRule {
  trigger: Trigger;
  from: readonly TransactionState[];
  to: TargetState;
}

const REFUNDABLE_STATES: readonly TransactionState[] = ['paid', 'captured'];

/** The transition table of contract §5. */
export const TRANSITION_TABLE: readonly TransitionRule[] = [
  { trigger: 'attempt_paid', from: PAYABLE_STATES, to: 'paid' },
  { trigger: 'attempt_authorized', from: PAYABLE_STATES, to: 'authorized' },
  { trigger: 'attempt_declined', from: PAYABLE_STATES, to: 'failed' },
  { trigger: 'attempt_error', from: PAYABLE_STATES, to: 'error' },
  { trigger: 'cancel', from: PAYABLE_STATES, to: 'canceled' },
  { trigger: 'expire', from: PAYABLE_STATES, to: 'expired' },
  { trigger: 'capture', from: ['authorized'], to: 'captured' },
  { trigger: 'void', from: ['authorized'], to: 'voided' },
  { trigger: 'refund_full', from: REFUNDABLE_STATES, to: 'refunded' },
  { trigger: 'refund_partial', from: REFUNDABLE_STATES, to: 'same' },
];

export function ruleFor(trigger: Trigger): TransitionRule {
  const rule = TRANSITION_TABLE.find((r) => r.trigger === trigger);
  if (!rule) throw new Error(`No transition rule for trigger "${trigger}"`);
  return rule;
}

/** The states a trigger may start from. */
export const sourcesOf = (trigger: Trigger): readonly TransactionState[] => ruleFor(trigger).from;

/** The state a trigger leads to from `from`, or null when the table refuses it. */
export function nextState(from: TransactionState, trigger: Trigger): TransactionState | null {
  const rule = ruleFor(trigger);
  if (!rule.from.includes(from)) return null;
  return rule.to === 'same' ? from : rule.to;
}

/** True when some trigger moves `from` to `to` (a state change; `same` rules do not count). */
export function canTransition(from: TransactionState, to: TransactionState): boolean {
  return TRANSITION_TABLE.some((r) => r.to === to && r.from.includes(from));
}

/** Every (from, to) pair the table allows. */
export function allowedPairs(): Array<[TransactionState, TransactionState]> {
  return TRANSITION_STATES_PAIRS.filter(([from, to]) => canTransition(from, to));
}

const TRANSITION_STATES_PAIRS: Array<[TransactionState, TransactionState]> = TRANSACTION_STATES.flatMap(
  (from) => TRANSACTION_STATES.map((to): [TransactionState, TransactionState] => [from, to]),
);

/** The event a state emits when entered: its own name, except `error`, which emits `failed`. */
export function eventForState(state: TransactionState): EventName {
  return state === 'error' ? 'failed' : state;
}

/** The event a trigger emits, given the state it leads to. */
export function eventFor(trigger: Trigger, to: TransactionState): EventName {
  return trigger === 'refund_partial' ? 'refunded' : eventForState(to);
}

/** Entering these states releases the `order_no` for reuse (contract §4). */
export const releasesOrderNo = (state: TransactionState): boolean =>
  ORDER_NO_RELEASING_STATES.includes(state);
