import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminAuth, seedBasics } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/admin/gateways/';
const HTTPS_ONLY = 'Enter an https URL (http only on a sandbox gateway).';
const originOnly = (origin: string) => `Enter an origin only, such as ${origin}: no path, query or fragment.`;

/**
 * contract §20.1 "Settings that cannot work are refused at save" (400 under `settings.<key>`): a
 * Stripe `api_base_url` with a path (Stripe's SDK takes a host and a port: every notify of such a
 * gateway used to answer 500), and an MPGS `api_base_url` that is not https on a production gateway.
 */
describe('admin gateways: settings that cannot work are refused at save', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
    await seedBasics(t);
  });
  after(() => t.close());

  const send = (method: 'post' | 'patch', path: string, body: object) =>
    t.http()[method](path).set('Authorization', adminAuth()).send(body);
  const stripe = (code: string, settings: Record<string, unknown>, type = 'production') =>
    send('post', PATH, {
      code,
      name: 'Stripe',
      pg: 'stripe',
      type,
      currencies: ['KWD'],
      settings: { secret_key: 'sk_test_origin_only', ...settings },
    });

  it('Stripe api_base_url: anything but an origin → 400 under settings.api_base_url, nothing saved', async () => {
    for (const [url, origin] of [
      ['https://api.stripe.com/v1', 'https://api.stripe.com'],
      ['https://proxy.example:8443/stripe/', 'https://proxy.example:8443'],
      ['https://api.stripe.com/?x=1', 'https://api.stripe.com'],
      ['https://api.stripe.com/#v1', 'https://api.stripe.com'],
      ['https://user:pw@api.stripe.com', 'https://api.stripe.com'],
    ]) {
      const res = await stripe('stripe-path', { api_base_url: url });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.deepEqual(res.body, { settings: { api_base_url: [originOnly(origin)] } }, url);
    }
    await t.http().get(`${PATH}stripe-path/`).set('Authorization', adminAuth()).expect(404);

    // An origin, with or without its slash, is saved; http only on a sandbox gateway.
    const saved = await stripe('stripe-origin', { api_base_url: 'https://api.stripe.com/' });
    assert.equal(saved.status, 201, saved.text);
    assert.equal(saved.body.settings.api_base_url, 'https://api.stripe.com/');
    const local = await stripe('stripe-local', { api_base_url: 'http://127.0.0.1:12111' }, 'sandbox');
    assert.equal(local.status, 201, local.text);
    const both = await stripe('stripe-http-path', { api_base_url: 'http://127.0.0.1:12111/v1' });
    assert.equal(both.status, 400);
    assert.deepEqual(both.body, { settings: { api_base_url: [HTTPS_ONLY] } });
  });

  it('Stripe api_base_url: a PATCH to a path is refused and the stored one kept', async () => {
    const res = await send('patch', `${PATH}stripe-origin/`, {
      settings: { api_base_url: 'https://api.stripe.com/proxy' },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body, { settings: { api_base_url: [originOnly('https://api.stripe.com')] } });
    const stored = await t.http().get(`${PATH}stripe-origin/`).set('Authorization', adminAuth()).expect(200);
    assert.equal(stored.body.settings.api_base_url, 'https://api.stripe.com/');
  });

  it('MPGS api_base_url: not https on a production gateway → 400; a bank path is fine', async () => {
    const mpgs = (code: string, url: string, type: string) =>
      send('post', PATH, {
        code,
        name: 'MPGS',
        pg: 'mpgs',
        type,
        currencies: ['KWD'],
        settings: { merchant_id: 'TEST0001', api_password: 'mpgs-pw-3f1a', api_base_url: url },
      });
    const refused = await mpgs('mpgs-http', 'http://bank.example', 'production');
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.body, { settings: { api_base_url: [HTTPS_ONLY] } });
    // Banks host the gateway under their own paths: MPGS's base URL may have one.
    const bank = await mpgs('mpgs-bank', 'https://bank.example/gateway', 'production');
    assert.equal(bank.status, 201, bank.text);
    // A sandbox gateway on http (a simulator) cannot become production without an https URL.
    assert.equal((await mpgs('mpgs-sim', 'http://127.0.0.1:9999', 'sandbox')).status, 201);
    const promoted = await send('patch', `${PATH}mpgs-sim/`, { type: 'production' });
    assert.equal(promoted.status, 400, promoted.text);
    assert.deepEqual(promoted.body, { settings: { api_base_url: [HTTPS_ONLY] } });
  });
});
