import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MpgsOrder, MpgsTransaction } from '../providers/mpgs/mpgs-types';
import { orderAnswer } from './mpgs-driver';

/** A transaction of an order as RETRIEVE ORDER lists it. */
function txn(
  id: string,
  type: string,
  result: MpgsTransaction['result'],
  gatewayCode: string,
): MpgsTransaction {
  return { result, order: { id: 'REF1' }, response: { gatewayCode }, transaction: { id, type } };
}

function order(status: string, transaction: MpgsTransaction[]): MpgsOrder {
  return { result: 'SUCCESS', id: 'REF1', amount: '86.000', currency: 'KWD', status, transaction };
}

describe('what an MPGS order says of an attempt (contract §20)', () => {
  it('a successful PAYMENT or AUTHORIZATION is the outcome, whatever followed it', () => {
    assert.deepEqual(orderAnswer(order('CAPTURED', [txn('1', 'PAYMENT', 'SUCCESS', 'APPROVED')])), {
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
    assert.equal((orderAnswer(voided) as { result: string }).result, 'success');
  });

  it('a FAILED order is declined with the last payment’s gateway code', () => {
    const answer = orderAnswer(order('FAILED', [txn('1', 'PAYMENT', 'FAILURE', 'EXPIRED_CARD')]));
    assert.deepEqual(answer, {
      result: 'declined',
      responseCode: 'EXPIRED_CARD',
      amount: '86.000',
      currencyCode: 'KWD',
      provider: { transaction_id: '1' },
    });
  });

  it('a payment not decided yet leaves the attempt open', () => {
    assert.equal(orderAnswer(order('INITIATED', [txn('1', 'PAYMENT', 'UNKNOWN', 'UNKNOWN')])), 'open');
    assert.equal(orderAnswer(order('INITIATED', [])), 'open');
  });
});
