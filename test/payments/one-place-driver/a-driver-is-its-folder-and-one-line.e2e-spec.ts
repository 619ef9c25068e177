import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { adminEvents, dataSourceOf } from '../../events/event-helpers';
import { TransactionDriver } from '../../factories/transaction-states';
import { adminAuth, seedBasics, type Seeded } from '../../setup/fixtures';
import { startApp, type TestApp } from '../../setup/test-app';
import { attemptsOf } from '../stripe-helpers';
import { OnePlaceDriver } from './one-place-driver';

const DRIVERS = '/b/checkout/v1/admin/gateway-drivers/';
const GATEWAYS = '/b/checkout/v1/admin/gateways/';

/**
 * The recipe of CONTRIBUTING.md "Add a gateway driver", proven: a driver is its folder (this one:
 * its catalogue entry, one-place.catalogue.ts, and its class, one-place-driver.ts) plus one line in
 * the list of drivers. Nothing else is written for it — no module, catalogue, console or validation
 * code — and it is in the drivers endpoint, its gateways' settings are checked, and it takes payments
 * and refunds (contract §20).
 */
describe('adding a gateway driver: its folder, then one line in the list of drivers', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let ds: DataSource;

  before(async () => {
    // The one line: as `OnePlaceDriver,` in src/payments/drivers/registered-drivers.ts.
    t = await startApp({ drivers: [OnePlaceDriver] });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(() => t.close());

  const admin = () => ({ Authorization: adminAuth() });
  const gateway = (settings: Record<string, unknown> | undefined, code = 'one') => ({
    code,
    name: 'One place',
    pg: 'one-place',
    type: 'production',
    currencies: ['KWD'],
    ...(settings === undefined ? {} : { settings }),
  });

  it('the drivers endpoint lists it after the built-in drivers, as its catalogue entry says', async () => {
    const res = await t.http().get(DRIVERS).set(admin()).expect(200);
    const drivers = res.body as Record<string, unknown>[];
    assert.deepEqual(
      drivers.map((driver) => driver.pg),
      ['sandbox', 'cash', 'mpgs', 'knet', 'stripe', 'router', 'one-place'],
    );
    assert.deepEqual(drivers.at(-1), {
      pg: 'one-place',
      name: 'One place (test driver)',
      flow: 'redirect',
      settings: [
        {
          name: 'approval_code',
          required: true,
          secret: false,
          default: null,
          description: 'The response code the provider approves with.',
        },
        {
          name: 'timeout_ms',
          required: false,
          secret: false,
          default: 8000,
          description:
            'How long (ms) a provider call that a customer or merchant waits on may take; at most 9000.',
        },
      ],
      operations: ['refund'],
      tokenizable: false,
      currencies: ['KWD'],
    });
  });

  it('a gateway of it is created (201) once its settings are right: a missing or unknown setting is 400', async () => {
    const missing = await t.http().post(GATEWAYS).set(admin()).send(gateway({})).expect(400);
    assert.deepEqual(missing.body, { settings: { approval_code: ['This field is required.'] } });
    const unknown = await t
      .http()
      .post(GATEWAYS)
      .set(admin())
      .send(gateway({ approval_code: 'A1', secret_key: 'x' }))
      .expect(400);
    assert.deepEqual(unknown.body, {
      settings: { secret_key: ['"secret_key" is not a setting of the one-place driver.'] },
    });
    const created = await t
      .http()
      .post(GATEWAYS)
      .set(admin())
      .send(gateway({ approval_code: 'A1' }))
      .expect(201);
    assert.equal(created.body.pg, 'one-place');
    assert.deepEqual(created.body.settings, { approval_code: 'A1' });
  });

  it('a transaction is paid through it: the pick sends the customer to the provider, the return settles it', async () => {
    const tx = await d.create({ pg_codes: ['one'] });
    const id = String(tx.session_id);
    const get = (url: string) => fetch(new URL(url, t.url), { redirect: 'manual' });
    const picked = await get(`/b/checkout/pay/one?session_id=${id}`);
    assert.equal(picked.status, 303);
    const providerPage = picked.headers.get('location')!;
    assert.match(providerPage, /\/b\/checkout\/v1\/gateways\/one\/return\/\?ref=/);
    const [started] = await attemptsOf(ds, id);
    assert.equal(started.settled_at, null, 'claimed and started, not settled before the return');

    const back = await get(providerPage);
    assert.equal(back.status, 200);
    assert.match(await back.text(), new RegExp(started.reference_number));
    assert.equal((await d.get(id)).state, 'paid');
    const [attempt] = await attemptsOf(ds, id);
    assert.equal(attempt.result, 'success');
    assert.equal(attempt.response_code, 'A1', "the gateway's settings reached the driver");
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });

  it('an operation goes to the driver when its catalogue entry offers it, and is refused otherwise', async () => {
    const tx = await d.create({ pg_codes: ['one'] });
    const id = String(tx.session_id);
    const picked = await fetch(new URL(`/b/checkout/pay/one?session_id=${id}`, t.url), {
      redirect: 'manual',
    });
    await fetch(new URL(picked.headers.get('location')!, t.url), { redirect: 'manual' });
    for (const operation of ['capture', 'void']) {
      const refused = await d.operate({ session_id: id, operation });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, {
        detail: `Gateway "one" (one-place) cannot ${operation}.`,
        operation,
        result: 'failed',
      });
    }
    const partly = await d.operate({ session_id: id, operation: 'refund', amount: '1.000' });
    assert.equal(partly.status, 400);
    assert.equal(partly.body.detail, 'Gateway "one" (one-place) cannot partially refund.');
    const refunded = await d.operate({ session_id: id, operation: 'refund' });
    assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
    assert.equal((await d.get(id)).state, 'refunded');
  });
});
