import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Gateway } from '../../gateways/gateway.entity';
import type { StartInput } from '../adapters/gateway-adapter';
import { KnetDriver } from './knet-driver';

const gateway = { code: 'knet', pg: 'knet', type: 'sandbox' } as Gateway;
const settings = {
  tranportal_id: '600001',
  tranportal_password: 'pass600001',
  resource_key: 'KNETRESOURCEKEY1',
  timeout_ms: 1000,
};
const BASE = 'https://pay.example.com/b/checkout/v1/gateways/knet';

function start(overrides: Partial<StartInput> = {}): StartInput {
  return {
    gateway,
    settings,
    referenceNumber: 'A1B2C3D4E5F60718293A',
    amount: '86.5',
    currencyCode: 'KWD',
    operation: 'purchase',
    description: 'Order 1',
    returnUrl: `${BASE}/return/?ref=A1B2C3D4E5F60718293A`,
    cancelUrl: `${BASE}/return/?ref=A1B2C3D4E5F60718293A&cancel=1`,
    notifyUrl: `${BASE}/notify/`,
    ...overrides,
  };
}

/**
 * What the `knet` driver refuses before a customer is sent to KNET (contract §20;
 * docs/gateways/knet.md "The driver"), and what it keeps of a start. The flows through the app are
 * test/payments/knet-payments.e2e-spec.ts.
 */
describe('KnetDriver', () => {
  const driver = new KnetDriver();

  it('serves gateways of pg knet only', () => {
    assert.equal(driver.serves(gateway), true);
    assert.equal(driver.serves({ ...gateway, pg: 'stripe' }), false);
  });

  it('starts on KNET’s test host of a sandbox gateway, keeping no URL and no secret', async () => {
    const started = await driver.start(start());
    assert.equal(started.destination.kind, 'redirect');
    const url = new URL(started.destination.kind === 'redirect' ? started.destination.url : '');
    assert.equal(`${url.origin}${url.pathname}`, 'https://www.kpaytest.com.kw/kpg/PaymentHTTP.htm');
    assert.equal(url.searchParams.get('errorURL'), `${BASE}/return/`);
    assert.equal(url.searchParams.get('responseURL'), `${BASE}/notify/`);
    assert.deepEqual(Object.keys(started.provider).sort(), ['amount', 'started_at', 'track_id']);
    assert.equal(started.provider.amount, '86.500');
    const kept = JSON.stringify(started.provider);
    for (const secret of [
      settings.tranportal_password,
      settings.resource_key,
      url.searchParams.get('trandata')!,
    ])
      assert.ok(!kept.includes(secret));
  });

  it('refuses what KNET cannot take: another currency, authorize, more than 3 decimals', async () => {
    await assert.rejects(driver.start(start({ currencyCode: 'USD' })), /only KWD/);
    await assert.rejects(driver.start(start({ operation: 'authorize' })), /only takes purchases/);
    await assert.rejects(driver.start(start({ amount: '1.0005' })), /at most 3 decimals/);
  });

  it('needs https for the URLs KNET calls, except on loopback hosts', async () => {
    const http = (host: string) => ({
      returnUrl: `http://${host}/b/checkout/v1/gateways/knet/return/?ref=X`,
      notifyUrl: `http://${host}/b/checkout/v1/gateways/knet/notify/`,
    });
    await assert.rejects(driver.start(start(http('pay.example.com'))), /https/);
    for (const host of ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000'])
      assert.equal((await driver.start(start(http(host)))).destination.kind, 'redirect');
  });

  it('a resource key that is not 16 characters fails the start, without the key in the message', async () => {
    const bad = { ...settings, resource_key: 'SHORTKEY' };
    await assert.rejects(driver.start(start({ settings: bad })), (error: Error) => {
      assert.ok(!error.message.includes('SHORTKEY'));
      return true;
    });
  });

  it('reads the track id of a return, and nothing that is not one', async () => {
    const call = { gateway, settings };
    assert.equal(await driver.returnReference(call, { trackid: 'A1B2C3' }), 'A1B2C3');
    assert.equal(await driver.returnReference(call, { trackid: 'A1/../x' }), null);
    assert.equal(await driver.returnReference(call, { Error: 'IPAY0100006' }), null);
  });

  it('cannot save cards, capture or void', async () => {
    await assert.rejects(driver.pay(), /cannot save cards/);
    for (const operation of ['capture', 'void'] as const) {
      const outcome = await driver.followUp({
        gateway,
        settings,
        operation,
        referenceNumber: 'A1B2C3',
        amount: '1.000',
        currencyCode: 'KWD',
      });
      assert.deepEqual(outcome, { result: 'failed', message: `KNET cannot ${operation}.` });
    }
  });
});
