import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Transaction } from '../transactions/transaction.entity';
import type { TransactionState } from '../transactions/transaction-state';
import { planOperation } from './operations.service';

const tx = (state: TransactionState, amounts: Partial<Transaction> = {}): Transaction =>
  ({
    state,
    amount: '86.500',
    currencyCode: 'KWD',
    paidAmount: '0',
    capturedAmount: '0',
    refundedAmount: '0',
    voidedAmount: '0',
    ...amounts,
  }) as Transaction;

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return assert.fail('expected a refusal');
};

/** contract §5/§10: what each operation does to a transaction as it is, decided without I/O. */
describe('planOperation', () => {
  it('cancels and expires only what the state table allows, without amounts or a gateway call', () => {
    assert.deepEqual(planOperation('cancel', tx('created'), null, 3), {
      trigger: 'cancel',
      amount: '86.500',
      versionGuard: false,
    });
    assert.equal(planOperation('expire', tx('failed'), null, 3).trigger, 'expire');
    assert.equal(
      refusal(() => planOperation('cancel', tx('paid'), null, 3)),
      'Cannot cancel a transaction in state "paid".',
    );
  });

  it('voids an authorization at the gateway, recording the voided amount', () => {
    const plan = planOperation('void', tx('authorized'), null, 3);
    assert.deepEqual(plan.amounts, { voidedAmount: '86.500' });
    assert.equal(plan.followUp, 'void');
    assert.equal(
      refusal(() => planOperation('void', tx('paid'), null, 3)),
      'Cannot void a transaction in state "paid".',
    );
  });

  it('captures all or part of an authorization, never more', () => {
    assert.deepEqual(planOperation('capture', tx('authorized'), null, 3).amounts, { capturedAmount: '86.5' });
    assert.deepEqual(planOperation('capture', tx('authorized'), '10', 3).amounts, { capturedAmount: '10' });
    assert.equal(
      refusal(() => planOperation('capture', tx('authorized'), '86.501', 3)),
      'The amount exceeds the authorized amount (86.500).',
    );
  });

  it('refunds what is left of what was paid or captured, partially or fully, guarded by the version', () => {
    const partial = planOperation(
      'refund',
      tx('paid', { paidAmount: '86.5', refundedAmount: '6.5' }),
      '30',
      3,
    );
    assert.deepEqual(
      {
        trigger: partial.trigger,
        amount: partial.amount,
        amounts: partial.amounts,
        guard: partial.versionGuard,
      },
      { trigger: 'refund_partial', amount: '30', amounts: { refundedAmount: '36.5' }, guard: true },
    );
    const rest = planOperation('refund', tx('paid', { paidAmount: '86.5', refundedAmount: '6.5' }), null, 3);
    assert.deepEqual([rest.trigger, rest.amount], ['refund_full', '80']);
    const captured = planOperation(
      'refund',
      tx('captured', { paidAmount: '86.5', capturedAmount: '40' }),
      null,
      3,
    );
    assert.deepEqual([captured.trigger, captured.amount], ['refund_full', '40']);
  });

  it('refuses a refund beyond what is left, and when nothing is left', () => {
    assert.equal(
      refusal(() =>
        planOperation('refund', tx('paid', { paidAmount: '86.5', refundedAmount: '80' }), '7', 3),
      ),
      'The amount exceeds what is left to refund (6.500).',
    );
    assert.equal(
      refusal(() =>
        planOperation('refund', tx('paid', { paidAmount: '86.5', refundedAmount: '86.5' }), null, 3),
      ),
      'Nothing is left to refund.',
    );
    assert.equal(
      refusal(() => planOperation('refund', tx('failed'), null, 3)),
      'Cannot refund a transaction in state "failed".',
    );
  });
});
