import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MpgsOrder, MpgsTransaction } from '../../providers/mpgs/mpgs-types';
import { MpgsPaymentUndecided, orderAnswer, sessionMayPay } from './mpgs-driver';

/** A transaction of an order as RETRIEVE ORDER lists it. */
function txn(
  id: string,
  type: string,
  result: MpgsTransaction['result'],
  gatewayCode: string,
): MpgsTransaction {
  return {
    result,
    order: { id: 'REF1' },
    response: { gatewayCode },
    transaction: { id, type, amount: '86.000', currency: 'KWD' },
  };
}

function order(status: string, transaction: MpgsTransaction[]): MpgsOrder {
  return { result: 'SUCCESS', id: 'REF1', amount: '86.000', currency: 'KWD', status, transaction };
}

const NOW = Date.parse('2030-01-01T12:00:00Z');
/** A checkout session that may still pay at NOW, and one that no longer can. */
const OPEN = { session_id: 'SESSION0002AB', payable_until: '2030-01-01T12:30:00.000Z' };
const OVER = { session_id: 'SESSION0002AB', payable_until: '2030-01-01T11:59:59.000Z' };
const answer = (o: MpgsOrder | null, provider: Record<string, string> | null = OPEN) =>
  orderAnswer(o, provider, 'REF1', NOW);

describe('what an MPGS order says of an attempt (contract §20.1)', () => {
  it('a successful PAYMENT or AUTHORIZATION is the outcome, whatever followed it, and whatever failed before it', () => {
    assert.deepEqual(answer(order('CAPTURED', [txn('1', 'PAYMENT', 'SUCCESS', 'APPROVED')])), {
      result: 'success',
      responseCode: 'APPROVED',
      amount: '86.000',
      currencyCode: 'KWD',
      provider: { transaction_id: '1' },
    });
    const voided = order('CANCELLED', [
      txn('1', 'AUTHORIZATION', 'SUCCESS', 'APPROVED'),
      txn('v', 'VOID_AUTHORIZATION', 'SUCCESS', 'APPROVED'),
    ]);
    assert.equal((answer(voided) as { result: string }).result, 'success');
    const retried = order('CAPTURED', [
      txn('1', 'PAYMENT', 'FAILURE', 'DECLINED'),
      txn('2', 'PAYMENT', 'SUCCESS', 'APPROVED'),
    ]);
    assert.deepEqual((answer(retried, OVER) as { provider: unknown }).provider, { transaction_id: '2' });
  });

  it('a decline while the session may still pay is not final (payerMayRetry); once it cannot, it is', () => {
    const failed = order('FAILED', [txn('1', 'PAYMENT', 'FAILURE', 'EXPIRED_CARD')]);
    assert.deepEqual(answer(failed), {
      result: 'declined',
      responseCode: 'EXPIRED_CARD',
      amount: '86.000',
      currencyCode: 'KWD',
      provider: { transaction_id: '1' },
      payerMayRetry: true,
    });
    assert.equal((answer(failed, OVER) as { payerMayRetry?: boolean }).payerMayRetry, undefined);
    // A saved-card charge has no checkout session: its decline is final at once.
    assert.equal(
      (answer(failed, { transaction_id: '1' }) as { payerMayRetry?: boolean }).payerMayRetry,
      undefined,
    );
  });

  it('a payment MPGS has not decided is not an answer: it throws', () => {
    assert.throws(
      () => answer(order('INITIATED', [txn('1', 'PAYMENT', 'UNKNOWN', 'UNKNOWN')])),
      MpgsPaymentUndecided,
    );
    assert.throws(
      () =>
        answer(
          order('FAILED', [
            txn('1', 'PAYMENT', 'FAILURE', 'DECLINED'),
            txn('2', 'PAYMENT', 'PENDING', 'PENDING'),
          ]),
        ),
      MpgsPaymentUndecided,
    );
  });

  it('no payment (no order, or only 3-D Secure authentication): open while the session may pay, null after', () => {
    for (const o of [
      null,
      order('AUTHENTICATION_INITIATED', [txn('1', 'AUTHENTICATION', 'PENDING', 'PENDING')]),
      order('AUTHENTICATION_UNSUCCESSFUL', [txn('1', 'AUTHENTICATION', 'FAILURE', 'DECLINED')]),
    ]) {
      assert.equal(answer(o), 'open');
      assert.equal(answer(o, OVER), null);
    }
    assert.equal(answer(null, null), null, 'no session stored: the customer never had one');
  });

  it('a session may pay until payable_until; older attempts by started_at and an hour', () => {
    assert.equal(sessionMayPay(OPEN, NOW), true);
    assert.equal(sessionMayPay(OVER, NOW), false);
    assert.equal(sessionMayPay({ session_id: 'S', started_at: '2030-01-01T11:30:00Z' }, NOW), true);
    assert.equal(sessionMayPay({ session_id: 'S', started_at: '2030-01-01T10:59:00Z' }, NOW), false);
    assert.equal(sessionMayPay({ payable_until: '2031-01-01T00:00:00Z' }, NOW), false, 'no session');
  });
});
