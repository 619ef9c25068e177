import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { OPERATION_PATH, TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const INQUIRY_PATH = '/b/pbl/v2/inquiry/';
const UNKNOWN_SESSION = 'a'.repeat(40);

/** What a caller can tell two answers apart by: status, body and headers (but the per-request ones). */
function visibleParts(res: Response): unknown {
  const { date: _date, 'x-request-id': _requestId, ...headers } = res.headers as Record<string, unknown>;
  return { status: res.status, body: res.body as unknown, headers };
}

/**
 * contract §3: a transaction on a gateway the caller may not use answers exactly as an unknown one
 * (404, same body, same headers), in operations, inquiry and every other route: a Basic user
 * limited to one gateway learns nothing about another gateway's session ids or order numbers.
 */
describe('transactions on gateways a Basic user may not use do not exist for it', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(gatewayInput({ code: 'gateway-b', name: 'Gateway B' }));
    d = new TransactionDriver(t, s.apiKey);
  });
  after(() => t.close());

  const operate = (body: object) => t.http().post(OPERATION_PATH).set('Authorization', s.merchant).send(body);
  const inquire = (body: object) => t.http().post(INQUIRY_PATH).set('Authorization', s.merchant).send(body);

  it('operations: by session_id and by order_no, as for an unknown one; nothing changes', async () => {
    const other = await d.create({ pg_codes: ['gateway-b'], order_no: 'B-ORDER-1' });
    const sessionId = String(other.session_id);
    for (const operation of ['cancel', 'expire', 'delete', 'refund']) {
      const hidden = await operate({ operation, session_id: sessionId });
      const unknown = await operate({ operation, session_id: UNKNOWN_SESSION });
      assert.equal(hidden.status, 404, operation);
      assert.deepEqual(visibleParts(hidden), visibleParts(unknown), operation);
      const byOrder = await operate({ operation, order_no: 'B-ORDER-1' });
      const unknownOrder = await operate({ operation, order_no: 'NO-SUCH-ORDER' });
      assert.deepEqual(visibleParts(byOrder), visibleParts(unknownOrder), operation);
      assert.deepEqual(byOrder.body, { detail: 'Not found.', operation, result: 'failed' });
    }
    const now = await d.get(sessionId);
    assert.equal(now.state, 'created');
  });

  it("operations by order_no reach the user's own transaction, never another gateway's", async () => {
    // The order_no is free again once the user's own transaction is canceled; gateway B's now holds it.
    const own = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.merchant)
      .send({
        type: 'e_commerce',
        amount: '5.000',
        currency_code: 'KWD',
        pg_codes: ['sandbox'],
        order_no: 'SHARED-1',
      })
      .expect(201);
    assert.equal(
      (await operate({ operation: 'cancel', order_no: 'SHARED-1' }).expect(200)).body.state,
      'canceled',
    );
    const other = await d.create({ pg_codes: ['gateway-b'], order_no: 'SHARED-1' });
    const res = await operate({ operation: 'cancel', order_no: 'SHARED-1' }).expect(400);
    assert.deepEqual(res.body, {
      detail: 'Cannot cancel a transaction in state "canceled".',
      operation: 'cancel',
      result: 'failed',
    });
    assert.equal((await d.get(String(other.session_id))).state, 'created', "gateway B's untouched");
    assert.equal((await d.get(String(own.body.session_id))).state, 'canceled');
  });

  it('inquiry: by session_id and by order_no, as for an unknown one', async () => {
    const other = await d.create({ pg_codes: ['gateway-b'], order_no: 'B-ORDER-2' });
    const hidden = await inquire({ session_id: other.session_id });
    const unknown = await inquire({ session_id: UNKNOWN_SESSION });
    assert.equal(hidden.status, 404);
    assert.deepEqual(hidden.body, { detail: 'Not found.', result: 'failed' });
    assert.deepEqual(visibleParts(hidden), visibleParts(unknown));
    const withNotify = await inquire({
      session_id: other.session_id,
      notify_webhook_url: true,
      webhook_url: 'http://127.0.0.1/hook',
    });
    const unknownWithNotify = await inquire({
      session_id: UNKNOWN_SESSION,
      notify_webhook_url: true,
      webhook_url: 'http://127.0.0.1/hook',
    });
    assert.deepEqual(visibleParts(withNotify), visibleParts(unknownWithNotify));
    const byOrder = await inquire({ order_no: 'B-ORDER-2' });
    const unknownOrder = await inquire({ order_no: 'NO-SUCH-ORDER' });
    assert.equal(byOrder.status, 404);
    assert.deepEqual(visibleParts(byOrder), visibleParts(unknownOrder));
    // The API key (every gateway) still finds it.
    await t
      .http()
      .post(INQUIRY_PATH)
      .set('Authorization', s.apiKey)
      .send({ order_no: 'B-ORDER-2' })
      .expect(200);
  });

  it('creating with a gateway code the user may not use stays 403', async () => {
    const res = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.merchant)
      .send({ type: 'e_commerce', amount: '5.000', currency_code: 'KWD', pg_codes: ['gateway-b'] })
      .expect(403);
    assert.deepEqual(res.body, { detail: 'You do not have permission to use gateway code "gateway-b".' });
  });
});
