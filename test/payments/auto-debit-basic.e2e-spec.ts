import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { UsersService } from '../../src/auth/users/users.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { TEST_CARDS } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { basicAuth, gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TxJson } from '../transactions/helpers';

const ROUTES = ['/b/pbl/v2/auto-debit/', '/b/pbl/v2/payment/auto-debit/'];
/** Headers that differ from one answer to the next whatever the answer says. */
const VARYING = new Set(['date', 'x-request-id', 'etag', 'content-length']);

/**
 * contract §15: auto-debit takes an API key or Basic authentication of a user allowed the
 * transaction's gateway. For any other Basic user the transaction is as unknown (contract §3:
 * permissions reveal nothing): the same 404, body and headers, and nothing charged or touched.
 */
describe('auto-debit with Basic authentication', () => {
  let t: TestApp;
  let s: Seeded;
  /** A Basic user of `other-sandbox` only (not the transactions' `sandbox`). */
  let outsider: string;

  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(gatewayInput({ code: 'other-sandbox', name: 'Other sandbox' }));
    await t.app
      .get(UsersService)
      .create({ username: 'outsider', password: 'outsider-pass-1', gatewayCodes: ['other-sandbox'] });
    outsider = basicAuth('outsider', 'outsider-pass-1');
  });
  after(() => t.close());

  const charge = (route: string, auth: string, body: object, headers: Record<string, string> = {}) =>
    t.http().post(route).set('Authorization', auth).set(headers).send(body);

  /** A customer's card saved by a paid transaction, and a new payable transaction of theirs. */
  async function cardAndTransaction(customer: string): Promise<{ token: string; tx: TxJson }> {
    const saving = await createTransaction(t, s, { customer_id: customer });
    await t
      .http()
      .post(`/b/checkout/v1/test-helpers/pymt-txn/${saving.session_id}/pay/`)
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success, save_card: true })
      .expect(200);
    const cards = await t
      .http()
      .post('/b/pbl/v2/card/')
      .set('Authorization', s.apiKey)
      .send({ customer_id: customer, type: 'sandbox' })
      .expect(200);
    const token = (cards.body as { token: string }[])[0].token;
    return { token, tx: await createTransaction(t, s, { customer_id: customer }) };
  }

  const stateOf = async (sessionId: string): Promise<string> =>
    String((await t.http().get(`/b/checkout/v1/pymt-txn/${sessionId}/`).expect(200)).body.state);
  const attemptsOf = async (sessionId: string): Promise<number> => {
    const rows = await t.app
      .get(DataSource)
      .query(
        'SELECT COUNT(*) AS n FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id WHERE t.session_id = ?',
        [sessionId],
      );
    return Number((rows as { n: number | string }[])[0].n);
  };
  const stableHeaders = (headers: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(headers).filter(([name]) => !VARYING.has(name.toLowerCase())));

  for (const route of ROUTES) {
    it(`${route}: a user allowed the gateway charges the card, as an API key does`, async () => {
      const { token, tx } = await cardAndTransaction(`cust-basic-${route.length}`);
      const res = await charge(route, s.merchant, { session_id: tx.session_id, token }).expect(200);
      assert.deepEqual(
        [res.body.event, res.body.result, res.body.state, res.body.session_id],
        ['paid', 'success', 'paid', tx.session_id],
      );
      assert.equal(res.body.token.token, token);
      assert.equal(await stateOf(tx.session_id), 'paid');
      // The transaction keeps the initiator of its creation (an API key: none); a charge records none.
      assert.equal(res.body.initiator_id ?? null, null);
      assert.equal(res.body.initiator, undefined);
      await charge(route, s.merchant, { session_id: tx.session_id, token }).expect(409);
    });

    it(`${route}: a user not allowed the gateway gets the unknown session's answer, nothing charged`, async () => {
      const { token, tx } = await cardAndTransaction(`cust-outsider-${route.length}`);
      const denied = await charge(route, outsider, { session_id: tx.session_id, token });
      const unknown = await charge(route, outsider, { session_id: 'c'.repeat(40), token });
      assert.equal(unknown.status, 404);
      assert.equal(denied.status, 404);
      assert.deepEqual(denied.body, unknown.body);
      assert.equal(denied.text, unknown.text);
      assert.deepEqual(stableHeaders(denied.headers), stableHeaders(unknown.headers));
      // Even with a token that is not the customer's (which would be 400 for a permitted caller).
      const wrongToken = await charge(route, outsider, { session_id: tx.session_id, token: 'z'.repeat(43) });
      assert.equal(wrongToken.status, 404);
      assert.equal(wrongToken.text, unknown.text);
      // With an Idempotency-Key too.
      const keyed = await charge(
        route,
        outsider,
        { session_id: tx.session_id, token },
        { 'Idempotency-Key': 'k1' },
      );
      assert.equal(keyed.status, 404);
      assert.equal(keyed.text, unknown.text);
      assert.equal(await stateOf(tx.session_id), 'created');
      assert.equal(await attemptsOf(tx.session_id), 0);
      // The card was not used: it is still charged by the allowed caller, once.
      const paid = await charge(route, s.merchant, { session_id: tx.session_id, token }).expect(200);
      assert.equal(paid.body.state, 'paid');
    });
  }

  it('a Basic user with a wrong password is refused before the body is read', async () => {
    const res = await charge(ROUTES[0], basicAuth('merchant', 'wrong-password-1'), {}).expect(401);
    assert.deepEqual(res.body, { detail: 'Invalid username or password.' });
  });
});
