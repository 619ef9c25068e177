import { Money } from '../common/money/money';
import { nextState, type Trigger } from '../transactions/state-machine';
import type { Transaction } from '../transactions/transaction.entity';
import type { AmountChanges } from '../transactions/transition.service';
import type { FollowUpOperation } from './adapters/gateway-adapter';

/** What a capture, void or refund the provider confirmed does to the transaction (contract §5). */
export interface ConfirmedChange {
  trigger: Trigger;
  amounts: AmountChanges;
  /** A read-modify-write of an amount (refunds): the transition is guarded by the row's version. */
  versionGuard: boolean;
}

/**
 * The transition an operation of `amount` makes on `tx` as it is now, or null when the table (or
 * what is left to refund) no longer allows it. Used when the operation is planned and again when
 * its confirmed answer is settled (which may be later: the reconciler, inquiry).
 */
export function confirmedChange(
  operation: FollowUpOperation,
  amount: string,
  tx: Transaction,
): ConfirmedChange | null {
  switch (operation) {
    case 'capture':
      if (!nextState(tx.state, 'capture') || new Money(amount).gt(tx.amount)) return null;
      return {
        trigger: 'capture',
        amounts: { capturedAmount: new Money(amount).toFixed() },
        versionGuard: false,
      };
    case 'void':
      if (!nextState(tx.state, 'void')) return null;
      return { trigger: 'void', amounts: { voidedAmount: tx.amount }, versionGuard: false };
    case 'refund': {
      if (!nextState(tx.state, 'refund_full')) return null;
      const base = refundBase(tx);
      const refunded = new Money(tx.refundedAmount).plus(amount);
      if (refunded.gt(base)) return null;
      return {
        trigger: refunded.eq(base) ? 'refund_full' : 'refund_partial',
        amounts: { refundedAmount: refunded.toFixed() },
        versionGuard: true,
      };
    }
  }
}

/** What a refund takes from: the captured amount of a captured authorization, else the paid amount. */
export function refundBase(tx: Transaction): Money {
  return new Money(tx.state === 'captured' ? tx.capturedAmount : tx.paidAmount);
}
