import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import { Transaction } from '../../src/transactions/transaction.entity';
import type { TransactionState } from '../../src/transactions/transaction-state';
import { TransactionsRepository } from '../../src/transactions/transactions.repository';
import { OPERATION_PATH, TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { createTransaction } from '../transactions/helpers';

const KWD_RULE = 'Stripe charges KWD in multiples of 0.010: the last of the three decimals must be 0.';

/**
 * contract §20.1: a capture or refund amount Stripe cannot move (e.g. a 0.005 KWD refund) → 400
 * with the rule under `amount` in the operations API's failed body; nothing is sent to Stripe and
 * nothing is left pending (it used to be reported pending forever, blocking the next refund with
 * 409). The Stripe gateways talk to a listener that counts every request it gets.
 */
describe('Stripe amount rule on capture and refund', () => {
  let t: TestApp;
  let s: Seeded;
  let provider: Server;
  let requests = 0;

  before(async () => {
    provider = createServer((_req, res) => {
      requests += 1;
      res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":{"message":"not here"}}');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    t = await startApp({
      overrides: [
        {
          provide: DRIVER_SETTINGS,
          useValue: {
            of: (gateway: Gateway) =>
              Promise.resolve(
                gateway.pg === 'stripe'
                  ? { secret_key: 'sk_test_amount_rule', api_base_url: base, timeout_ms: 1000 }
                  : {},
              ),
          },
        },
      ],
    });
    s = await seedBasics(t);
    const gateways = t.app.get(GatewaysService);
    const stripe = { pg: 'stripe', type: 'sandbox' as const, tokenizable: false, currencies: ['KWD', 'USD'] };
    await gateways.create(gatewayInput({ ...stripe, code: 'stripe', name: 'Stripe' }));
    await gateways.create(
      gatewayInput({ ...stripe, code: 'stripe-auth', name: 'Stripe (authorize)', operation: 'authorize' }),
    );
  });
  after(async () => {
    await t?.close();
    await new Promise<void>((resolve) => provider.close(() => resolve()));
  });

  /** A Stripe transaction of `amount` in `state`, as a settled attempt leaves it. */
  async function settled(pg: string, amount: string, state: TransactionState): Promise<string> {
    const tx = await createTransaction(t, s, { amount, pg_codes: [pg] });
    const row = await t.app
      .get(DataSource)
      .getRepository(Transaction)
      .findOneByOrFail({
        sessionId: tx.session_id as string,
      });
    const changes: Partial<Transaction> = state === 'paid' ? { state, paidAmount: amount } : { state };
    assert.ok(
      await t.app
        .get(TransactionsRepository)
        .updateIfCurrent(row.id, row.version, [row.state], changes, t.app.get(DataSource).manager),
    );
    return tx.session_id as string;
  }

  const operate = (body: object) => t.http().post(OPERATION_PATH).set('Authorization', s.apiKey).send(body);

  const operationRows = async (sessionId: string): Promise<number> =>
    Number(
      (
        await t.app.get(DataSource).query<{ n: number | string }[]>(
          `SELECT COUNT(*) AS n FROM provider_operations o JOIN transactions t ON t.id = o.transaction_id
           WHERE t.session_id = ?`,
          [sessionId],
        )
      )[0].n,
    );

  it('a 0.005 KWD refund → 400, the rule under amount, nothing sent, nothing pending', async () => {
    const sessionId = await settled('stripe', '5.120', 'paid');
    const res = await operate({ operation: 'refund', session_id: sessionId, amount: '0.005' });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      detail: KWD_RULE,
      operation: 'refund',
      result: 'failed',
      amount: [KWD_RULE],
    });
    assert.equal(requests, 0, 'nothing was sent to Stripe');
    assert.equal(await operationRows(sessionId), 0, 'no operation is left pending');
    const tx = await t.app.get(DataSource).getRepository(Transaction).findOneByOrFail({ sessionId });
    assert.equal(tx.state, 'paid');
    assert.equal(Number(tx.refundedAmount), 0);

    // The same refund with a Tracking-Key: refused the same way, and replayed as refused.
    const tracked = () =>
      t
        .http()
        .post(OPERATION_PATH)
        .set('Authorization', s.apiKey)
        .set('Tracking-Key', 'refund-0.005')
        .send({ operation: 'refund', session_id: sessionId, amount: '0.005' });
    const first = await tracked();
    assert.equal(first.status, 400);
    assert.deepEqual(first.body.amount, [KWD_RULE]);
    const again = await tracked();
    assert.equal(again.status, 400);
    assert.equal(again.headers['tracking-key-replayed'], 'true');
    assert.equal(requests, 0);
    assert.equal(await operationRows(sessionId), 0);
  });

  it('a 1.005 KWD capture of a Stripe authorization → 400 the same way', async () => {
    const sessionId = await settled('stripe-auth', '5.120', 'authorized');
    const res = await operate({ operation: 'capture', session_id: sessionId, amount: '1.005' });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      detail: KWD_RULE,
      operation: 'capture',
      result: 'failed',
      amount: [KWD_RULE],
    });
    assert.equal(requests, 0);
    assert.equal(await operationRows(sessionId), 0);
  });

  it('"the rest" is checked too: what is left of a transaction stored before the rule', async () => {
    // A sandbox transaction of 5.125 KWD that moved to Stripe before the rule existed (written directly).
    const sessionId = await settled('stripe', '5.120', 'paid');
    await t.app
      .get(DataSource)
      .getRepository(Transaction)
      .update({ sessionId }, { amount: '5.125', paidAmount: '5.125' });
    const res = await operate({ operation: 'refund', session_id: sessionId });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body.amount, [KWD_RULE]);
    assert.equal(requests, 0);
    assert.equal(await operationRows(sessionId), 0);
  });

  it('an amount the currency allows on another gateway is not refused by the Stripe rule', async () => {
    const d = new TransactionDriver(t, s.apiKey);
    const tx = await d.create({ amount: '5.125' });
    await d.pay(tx.session_id as string, TEST_CARDS.success);
    const res = await operate({ operation: 'refund', session_id: tx.session_id, amount: '0.005' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.amount, '0.005');
  });
});
