import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { TEST_CARDS } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const METHODS = '/b/pbl/v2/payment-methods/';

interface MethodJson {
  code: string;
  [field: string]: unknown;
}
interface Answer {
  payment_methods: MethodJson[];
  customer_payment_methods: { token: string; pg_code: string; customer_id: string }[];
}

/** contract §16: `POST /b/pbl/v2/payment-methods/`. */
describe('payment methods', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    const gateways = t.app.get(GatewaysService);
    await gateways.create(
      gatewayInput({
        code: 'sandbox-auth',
        name: 'Sandbox auth',
        operation: 'authorize',
        currencies: ['KWD'],
        feeFixed: '0.25',
        feePercent: '2.5',
        tokenizable: false,
      }),
    );
    await gateways.create(
      gatewayInput({
        code: 'cash-main',
        name: 'Cash',
        pg: 'cash',
        type: 'production',
        flow: 'offline',
        currencies: ['KWD'],
        tokenizable: false,
        icon: 'https://cdn.example.com/cash.svg',
      }),
    );
    await gateways.create(
      gatewayInput({
        code: 'knet-live',
        name: 'KNET',
        pg: 'knet',
        type: 'production',
        currencies: ['KWD', 'USD'],
      }),
    );
    await gateways.create(gatewayInput({ code: 'retired', name: 'Retired', isActive: false }));
    // A saved card of a customer on the sandbox gateway.
    const d = new TransactionDriver(t, s.apiKey);
    const tx = await d.create({ customer_id: 'cust-pm' });
    const paid = await t
      .http()
      .post(`/b/checkout/v1/test-helpers/pymt-txn/${String(tx.session_id)}/pay/`)
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success, save_card: true });
    assert.equal(paid.status, 200);
  });
  after(() => t.close());

  const find = async (body: object, auth = s.apiKey): Promise<Answer> => {
    const res = await t.http().post(METHODS).set('Authorization', auth).send(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Answer;
  };
  const codes = async (body: object, auth = s.apiKey) =>
    (await find(body, auth)).payment_methods.map((m) => m.code);
  const refused = async (body: object) => {
    const res = await t.http().post(METHODS).set('Authorization', s.apiKey).send(body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    return res.body as Record<string, string[]>;
  };

  it('lists the active gateways, each as the contract describes it', async () => {
    const answer = await find({});
    assert.deepEqual(
      answer.payment_methods.map((m) => m.code),
      ['sandbox', 'sandbox-auth', 'cash-main', 'knet-live'],
    );
    assert.deepEqual(answer.customer_payment_methods, [], 'no customer_id: no cards');
    const auth = answer.payment_methods[1];
    assert.deepEqual(auth, {
      code: 'sandbox-auth',
      name: 'Sandbox auth',
      pg: 'sandbox',
      type: 'sandbox',
      is_sandbox: true,
      currencies: ['KWD'],
      operation: 'authorize',
      tokenizable: false,
      icon: auth.icon,
      flow: 'redirect',
      fee_description: '2.5% + 0.25',
    });
    assert.match(String(auth.icon), /^http:\/\/.+\/b\/checkout\/static\/icons\/sandbox\.svg$/);
    const cash = answer.payment_methods[2];
    assert.equal(cash.flow, 'offline');
    assert.equal(cash.icon, 'https://cdn.example.com/cash.svg');
    assert.equal(cash.is_sandbox, false);
    assert.equal(answer.payment_methods[0].fee_description, 'No fee');
  });

  it('applies every filter sent', async () => {
    assert.deepEqual(await codes({ type: 'sandbox' }), ['sandbox', 'sandbox-auth']);
    assert.deepEqual(await codes({ type: 'production' }), ['cash-main', 'knet-live']);
    assert.deepEqual(await codes({ currencies: ['usd'] }), ['sandbox', 'knet-live']);
    assert.deepEqual(await codes({ currencies: ['KWD', 'JPY'] }), ['sandbox']);
    assert.deepEqual(await codes({ operation: 'authorize' }), ['sandbox-auth']);
    assert.deepEqual(await codes({ tokenizable: true }), ['sandbox', 'knet-live']);
    assert.deepEqual(await codes({ tokenizable: false }), ['sandbox-auth', 'cash-main']);
    assert.deepEqual(await codes({ pg_names: ['cash', 'knet'] }), ['cash-main', 'knet-live']);
    assert.deepEqual(await codes({ plugin: 'e_commerce' }), [
      'sandbox',
      'sandbox-auth',
      'cash-main',
      'knet-live',
    ]);
    assert.deepEqual(await codes({ type: 'production', currencies: ['USD'], tokenizable: true }), [
      'knet-live',
    ]);
    assert.deepEqual(await codes({ type: 'sandbox', pg_names: ['cash'] }), []);
    assert.deepEqual(
      await codes({ plugin: null, currencies: null, type: null, tokenizable: null }),
      ['sandbox', 'sandbox-auth', 'cash-main', 'knet-live'],
      'null means not sent',
    );
  });

  it("with customer_id: the customer's saved cards on the methods found", async () => {
    const all = await find({ customer_id: 'cust-pm' });
    assert.equal(all.customer_payment_methods.length, 1);
    assert.equal(all.customer_payment_methods[0].pg_code, 'sandbox');
    assert.equal(all.customer_payment_methods[0].customer_id, 'cust-pm');
    assert.deepEqual(
      (await find({ customer_id: 'cust-pm', type: 'production' })).customer_payment_methods,
      [],
    );
    assert.deepEqual((await find({ customer_id: 'someone-else' })).customer_payment_methods, []);
  });

  it('a Basic user sees only the gateways it may use, and only their cards', async () => {
    const answer = await find({ customer_id: 'cust-pm' }, s.merchant);
    assert.deepEqual(
      answer.payment_methods.map((m) => m.code),
      ['sandbox'],
    );
    assert.equal(answer.customer_payment_methods.length, 1);
    await t.http().post(METHODS).send({}).expect(401);
  });

  it('bad filters: field errors, every one at once', async () => {
    const errors = await refused({
      plugin: 'shop',
      currencies: ['KW'],
      customer_id: 'c'.repeat(65),
      operation: 'sale',
      tokenizable: 'maybe',
      pg_names: ['Not A Pg'],
      type: 'live',
    });
    assert.deepEqual(Object.keys(errors).sort(), [
      'currencies',
      'customer_id',
      'operation',
      'pg_names',
      'plugin',
      'tokenizable',
      'type',
    ]);
    assert.ok(Array.isArray((await refused({ currencies: 'KWD' })).currencies));
    assert.ok(Array.isArray((await refused({ pg_names: [7] })).pg_names));
    assert.ok(
      Array.isArray((await refused({ currencies: Array.from({ length: 51 }, () => 'KWD') })).currencies),
    );
  });
});
