import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { transactionBody } from '../factories/transaction.factory';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, postTransaction, storedRow, txnPath } from './helpers';

const KWD_RULE = 'Stripe charges KWD in multiples of 0.010: the last of the three decimals must be 0.';

/**
 * contract §20.1 "Stripe's amount rule is checked before anything is sent": a create or update
 * (POST, PATCH, PUT) whose gateway is a `stripe` one, with an amount Stripe cannot charge, is
 * refused with the rule under `amount` and writes nothing (it used to be accepted, and the customer
 * then got a 503 at Stripe).
 */
describe('Stripe amount rule on create and update', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app
      .get(GatewaysService)
      .create(gatewayInput({ code: 'stripe', name: 'Stripe', pg: 'stripe', tokenizable: false }));
  });
  after(() => t.close());

  const count = async (): Promise<number> =>
    Number(
      (
        await t.app.get(DataSource).query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM transactions')
      )[0].n,
    );

  it('POST: 5.125 KWD on a Stripe gateway → 400 under amount, nothing stored; 5.120 is created', async () => {
    const before = await count();
    const res = await postTransaction(t, s, transactionBody({ amount: '5.125', pg_codes: ['stripe'] }));
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, { amount: [KWD_RULE] });
    assert.equal(await count(), before, 'nothing was written');

    // Every violation at once: the rule beside the others.
    const both = await postTransaction(
      t,
      s,
      transactionBody({ amount: 5.125, pg_codes: ['stripe'], customer_email: 'not-an-email' }),
    );
    assert.equal(both.status, 400);
    assert.deepEqual(both.body.amount, [KWD_RULE]);
    assert.ok(both.body.customer_email);

    const ok = await createTransaction(t, s, { amount: '5.120', pg_codes: ['stripe'] });
    assert.equal(ok.amount, '5.120');
    // The same amount on a gateway whose provider takes thousandths.
    assert.equal((await createTransaction(t, s, { amount: '5.125' })).amount, '5.125');
    // Other currencies: Stripe's two decimals (USD) and whole units (JPY) are the currencies' own.
    assert.equal(
      (await createTransaction(t, s, { amount: '10.5', currency_code: 'USD', pg_codes: ['stripe'] })).amount,
      '10.50',
    );
  });

  it('PATCH: an amount, or a move to a Stripe gateway, that Stripe cannot charge → 400, the row unchanged', async () => {
    const tx = await createTransaction(t, s, { amount: '5.120', pg_codes: ['stripe'] });
    const patch = (body: object) =>
      t.http().patch(txnPath(tx.session_id)).set('Authorization', s.apiKey).send(body);
    const stored = await storedRow(t, tx.session_id);

    const res = await patch({ amount: '5.125' });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, { amount: [KWD_RULE] });
    const after = await storedRow(t, tx.session_id);
    assert.equal(after.amount, stored.amount);
    assert.equal(after.version, stored.version);

    // A sandbox transaction of 5.125 KWD cannot move to the Stripe gateway either.
    const sandbox = await createTransaction(t, s, { amount: '5.125' });
    const moved = await t
      .http()
      .patch(txnPath(sandbox.session_id))
      .set('Authorization', s.apiKey)
      .send({ pg_codes: ['stripe'] });
    assert.equal(moved.status, 400, JSON.stringify(moved.body));
    assert.deepEqual(moved.body, { amount: [KWD_RULE] });
    assert.equal((await storedRow(t, sandbox.session_id)).pgCode, 'sandbox');

    const fine = await patch({ amount: '7.250' });
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.equal(fine.body.amount, '7.250');
  });

  it('PUT: the same rule on a full update', async () => {
    const tx = await createTransaction(t, s, { amount: '5.120', pg_codes: ['stripe'] });
    const put = (body: object) =>
      t.http().put(txnPath(tx.session_id)).set('Authorization', s.apiKey).send(body);
    const res = await put(transactionBody({ amount: '0.005', pg_codes: ['stripe'] }));
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, { amount: [KWD_RULE] });
    const stored = await t.http().get(txnPath(tx.session_id)).set('Authorization', s.apiKey).expect(200);
    assert.equal(stored.body.amount, '5.120');
    const fine = await put(transactionBody({ amount: '0.010', pg_codes: ['stripe'] }));
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.equal(fine.body.amount, '0.010');
  });
});
