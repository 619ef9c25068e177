import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allowedPairs,
  canTransition,
  eventFor,
  eventForState,
  nextState,
  releasesOrderNo,
  sourcesOf,
  TRIGGERS,
  type Trigger,
} from './state-machine';
import { TRANSACTION_STATES, type TransactionState } from './transaction-state';

/** contract §5, written out by hand (not derived from the table under test). */
const PAYABLE: TransactionState[] = ['created', 'failed', 'error'];
const EXPECTED_PAIRS: Array<[TransactionState, TransactionState]> = [
  ...PAYABLE.flatMap((from) =>
    (['paid', 'authorized', 'failed', 'error', 'canceled', 'expired'] as const).map(
      (to): [TransactionState, TransactionState] => [from, to],
    ),
  ),
  ['authorized', 'captured'],
  ['authorized', 'voided'],
  ['paid', 'refunded'],
  ['captured', 'refunded'],
];

/** Per trigger: from-state → resulting state; every state not listed is refused. */
const EXPECTED_BY_TRIGGER: Record<Trigger, Partial<Record<TransactionState, TransactionState>>> = {
  attempt_paid: { created: 'paid', failed: 'paid', error: 'paid' },
  attempt_authorized: { created: 'authorized', failed: 'authorized', error: 'authorized' },
  attempt_declined: { created: 'failed', failed: 'failed', error: 'failed' },
  attempt_error: { created: 'error', failed: 'error', error: 'error' },
  cancel: { created: 'canceled', failed: 'canceled', error: 'canceled' },
  expire: { created: 'expired', failed: 'expired', error: 'expired' },
  capture: { authorized: 'captured' },
  void: { authorized: 'voided' },
  refund_full: { paid: 'refunded', captured: 'refunded' },
  refund_partial: { paid: 'paid', captured: 'captured' },
};

const key = ([from, to]: [TransactionState, TransactionState]) => `${from}->${to}`;

describe('payment state machine', () => {
  it('allows exactly the state changes of contract §5', () => {
    assert.deepEqual(allowedPairs().map(key).sort(), EXPECTED_PAIRS.map(key).sort());
  });

  for (const from of TRANSACTION_STATES) {
    for (const to of TRANSACTION_STATES) {
      const allowed = EXPECTED_PAIRS.some(([f, t]) => f === from && t === to);
      it(`${allowed ? 'allows' : 'refuses'} ${from} → ${to}`, () => {
        assert.equal(canTransition(from, to), allowed);
      });
    }
  }

  for (const trigger of TRIGGERS) {
    it(`applies "${trigger}" only from its source states`, () => {
      const expected = EXPECTED_BY_TRIGGER[trigger];
      for (const from of TRANSACTION_STATES) {
        assert.equal(nextState(from, trigger), expected[from] ?? null, `${trigger} from ${from}`);
      }
      assert.deepEqual([...sourcesOf(trigger)].sort(), Object.keys(expected).sort());
    });
  }

  it('never leaves a final state', () => {
    for (const from of ['canceled', 'expired', 'voided', 'refunded'] as const) {
      for (const trigger of TRIGGERS) assert.equal(nextState(from, trigger), null, `${trigger} from ${from}`);
    }
  });

  it("emits the new state's name, and failed for error", () => {
    for (const state of TRANSACTION_STATES) {
      assert.equal(eventForState(state), state === 'error' ? 'failed' : state);
    }
    assert.equal(eventFor('attempt_error', 'error'), 'failed');
    assert.equal(eventFor('capture', 'captured'), 'captured');
  });

  it('emits refunded for a partial refund although the state stays', () => {
    assert.equal(eventFor('refund_partial', 'paid'), 'refunded');
    assert.equal(eventFor('refund_partial', 'captured'), 'refunded');
  });

  it('releases the order_no only when canceled or expired', () => {
    assert.deepEqual(
      TRANSACTION_STATES.filter((s) => releasesOrderNo(s)),
      ['canceled', 'expired'],
    );
  });
});
