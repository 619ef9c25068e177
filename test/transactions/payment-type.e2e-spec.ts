import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { transactionBody } from '../factories/transaction.factory';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createErrors, createTransaction, storedRow, txnPath } from './helpers';

const AGREEMENT = { id: 'subscription-42', frequency: 'monthly', cycle_interval_days: 30, total_cycles: 12 };

/** contract §15: `payment_type` and `agreement` on create and update. */
describe('create/update: payment_type and agreement', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(gatewayInput({ code: 'no-tokens', tokenizable: false }));
  });
  after(() => t.close());

  it('defaults to one_off with no agreement', async () => {
    const tx = await createTransaction(t, s);
    assert.equal(tx.payment_type, 'one_off');
    assert.equal(tx.agreement, null);
  });

  it('echoes save_card, and auto_debit with its agreement (type defaulted to unscheduled)', async () => {
    const saving = await createTransaction(t, s, { payment_type: 'save_card', customer_id: 'cust-1' });
    assert.equal(saving.payment_type, 'save_card');
    const debit = await createTransaction(t, s, {
      payment_type: 'auto_debit',
      customer_id: 'cust-1',
      agreement: {
        ...AGREEMENT,
        amount_variability: 'variable',
        max_amount_per_cycle: 25.5,
        start_date: '2030-01-01',
        expiry_date: '2031-01-01',
      },
    });
    assert.equal(debit.payment_type, 'auto_debit');
    assert.deepEqual(debit.agreement, {
      ...AGREEMENT,
      type: 'unscheduled',
      amount_variability: 'variable',
      max_amount_per_cycle: '25.5',
      start_date: '2030-01-01',
      expiry_date: '2031-01-01',
    });
    const read = await t.http().get(txnPath(debit.session_id)).expect(200);
    assert.deepEqual(read.body.agreement, debit.agreement);
  });

  it('refuses an unknown payment_type', async () => {
    assert.deepEqual(await createErrors(t, s, { payment_type: 'recurring', customer_id: 'c' }), {
      payment_type: ['"recurring" is not a valid choice.'],
    });
  });

  it('needs customer_id to save a card, and an agreement to auto-debit', async () => {
    assert.deepEqual(await createErrors(t, s, { payment_type: 'save_card' }), {
      customer_id: ['This field is required when payment_type is "save_card".'],
    });
    assert.deepEqual(await createErrors(t, s, { payment_type: 'auto_debit' }), {
      customer_id: ['This field is required when payment_type is "auto_debit".'],
      agreement: ['This field is required when payment_type is "auto_debit".'],
    });
  });

  it('refuses saving on a gateway that cannot tokenize, under payment_type', async () => {
    for (const payment_type of ['save_card', 'auto_debit']) {
      assert.deepEqual(
        await createErrors(t, s, {
          payment_type,
          customer_id: 'c',
          agreement: AGREEMENT,
          pg_codes: ['no-tokens'],
        }),
        { payment_type: ['Gateway "no-tokens" cannot save cards.'] },
      );
    }
    const oneOff = await createTransaction(t, s, { pg_codes: ['no-tokens'], customer_id: 'c' });
    assert.equal(oneOff.payment_type, 'one_off');
  });

  it('checks every agreement field', async () => {
    const errors = (agreement: unknown) =>
      createErrors(t, s, { payment_type: 'auto_debit', customer_id: 'c', agreement });
    assert.deepEqual(await errors({ type: 'recurring' }), { agreement: { id: ['This field is required.'] } });
    assert.deepEqual(await errors('monthly'), {
      agreement: ['Expected a dictionary of items but got type "str".'],
    });
    assert.deepEqual(
      await errors({
        id: 'x'.repeat(129),
        type: 'weekly',
        frequency: 'f'.repeat(33),
        amount_variability: 'some',
        max_amount_per_cycle: '-1',
        cycle_interval_days: 0,
        total_cycles: 1000,
        start_date: '2030-02-30',
        expiry_date: '01/01/2031',
      }),
      {
        agreement: {
          id: ['Ensure this field has no more than 128 characters.'],
          type: ['"weekly" is not a valid choice.'],
          frequency: ['Ensure this field has no more than 32 characters.'],
          amount_variability: ['"some" is not a valid choice.'],
          max_amount_per_cycle: ['Ensure this value is greater than 0.'],
          cycle_interval_days: ['Ensure this value is greater than or equal to 1.'],
          total_cycles: ['Ensure this value is less than or equal to 999.'],
          start_date: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
          expiry_date: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
        },
      },
    );
    assert.deepEqual(await errors({ id: 'a', cycle_interval_days: 367, total_cycles: 'often' }), {
      agreement: {
        cycle_interval_days: ['Ensure this value is less than or equal to 366.'],
        total_cycles: ['A valid integer is required.'],
      },
    });
    assert.deepEqual(await errors({ id: 'a', max_amount_per_cycle: '1.0001' }), {
      agreement: { max_amount_per_cycle: ['Ensure that there are no more than 3 decimal places for KWD.'] },
    });
    assert.deepEqual(await errors({ id: 'a', start_date: '2031-01-02', expiry_date: '2031-01-01' }), {
      agreement: { expiry_date: ['Ensure this date is on or after start_date.'] },
    });
    const limits = await createTransaction(t, s, {
      payment_type: 'auto_debit',
      customer_id: 'c',
      agreement: { id: 'x'.repeat(128), type: 'installment', cycle_interval_days: 366, total_cycles: '999' },
    });
    assert.deepEqual(limits.agreement, {
      id: 'x'.repeat(128),
      type: 'installment',
      cycle_interval_days: 366,
      total_cycles: 999,
    });
  });

  describe('update', () => {
    const patch = (sessionId: string, body: object) =>
      t.http().patch(txnPath(sessionId)).set('Authorization', s.apiKey).send(body);

    it('re-checks the merged input: auto_debit needs the stored or sent agreement and customer_id', async () => {
      const tx = await createTransaction(t, s);
      const refused = await patch(tx.session_id, { payment_type: 'auto_debit', customer_id: 'c' }).expect(
        400,
      );
      assert.deepEqual(refused.body, {
        agreement: ['This field is required when payment_type is "auto_debit".'],
      });
      assert.equal((await storedRow(t, tx.session_id)).paymentType, 'one_off', 'a rejected update wrote');
      const ok = await patch(tx.session_id, { agreement: AGREEMENT, customer_id: 'c' }).expect(200);
      assert.equal(ok.body.payment_type, 'one_off');
      const debit = await patch(tx.session_id, { payment_type: 'auto_debit' }).expect(200);
      assert.equal(debit.body.payment_type, 'auto_debit');
      assert.equal(debit.body.agreement.id, AGREEMENT.id);
      const cleared = await patch(tx.session_id, { customer_id: null }).expect(400);
      assert.deepEqual(cleared.body, {
        customer_id: ['This field is required when payment_type is "auto_debit".'],
      });
    });

    it('null resets payment_type to one_off and clears the agreement', async () => {
      const tx = await createTransaction(
        t,
        s,
        transactionBody({ payment_type: 'save_card', customer_id: 'c', agreement: AGREEMENT }),
      );
      const res = await patch(tx.session_id, { payment_type: null, agreement: null }).expect(200);
      assert.equal(res.body.payment_type, 'one_off');
      assert.equal(res.body.agreement, null);
    });
  });
});
