import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { GatewaySettings } from '../../src/gateways/gateway-settings';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { keyId } from '../../src/gateways/secrets-cipher';
import { adminAuth, gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp, TEST_SECRETS_KEY } from '../setup/test-app';

const PATH = '/b/checkout/v1/admin/gateways/';
const DRIVERS = '/b/checkout/v1/admin/gateway-drivers/';

/** Secret values the tests store: none may come back in any answer. */
const SECRETS = {
  mpgsPassword: 'mpgs-api-password-6e1f2a',
  mpgsNotification: 'mpgs-notify-secret-0c9d7b',
  knetPassword: 'knet-tranportal-pw-77a1',
  knetKey: 'KNETRESOURCE4a9Z',
  stripeKey: 'sk_test_stripe-secret-51H8x',
};

const mpgsSettings = (more: Record<string, unknown> = {}) => ({
  merchant_id: 'TEST0001',
  api_password: SECRETS.mpgsPassword,
  api_base_url: 'https://test-gateway.mastercard.com',
  ...more,
});

/** Contract §20 "Configuring a driver", "Secrets are write-only", "Secrets at rest" (admin API). */
describe('admin gateways: driver settings and secrets', () => {
  let t: TestApp;
  let s: Seeded;
  /** Every answer body the tests got, to look for secrets in. */
  const answers: string[] = [];
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const send = async (method: 'post' | 'patch', path: string, body: unknown, status: number) => {
    const res = await t
      .http()
      [method](path)
      .set('Authorization', adminAuth())
      .send(body as object);
    answers.push(res.text);
    assert.equal(res.status, status, res.text);
    return res.body as Record<string, unknown>;
  };
  const create = (body: Record<string, unknown>, status = 201) =>
    send('post', PATH, { name: 'Gateway', type: 'production', currencies: ['KWD'], ...body }, status);
  const patch = (code: string, body: Record<string, unknown>, status = 200) =>
    send('patch', `${PATH}${code}/`, body, status);
  const read = async (code: string) => {
    const res = await t.http().get(`${PATH}${code}/`).set('Authorization', adminAuth()).expect(200);
    answers.push(res.text);
    return res.body as Record<string, unknown>;
  };
  const rawSecrets = async (code: string): Promise<string | null> => {
    const rows = await t.app
      .get(DataSource)
      .query<{ secrets: string | null }[]>('SELECT secrets FROM gateways WHERE code = ?', [code]);
    return rows[0].secrets;
  };

  describe('the driver catalogue', () => {
    it('lists every driver with its flow, settings, operations, card saving and currencies', async () => {
      const res = await t.http().get(DRIVERS).set('Authorization', adminAuth()).expect(200);
      const drivers = res.body as { pg: string; settings: { name: string }[] }[];
      assert.deepEqual(
        drivers.map((d) => d.pg),
        ['sandbox', 'cash', 'mpgs', 'knet', 'stripe', 'router'],
      );
      const byPg = Object.fromEntries(drivers.map((d) => [d.pg, d])) as Record<
        string,
        Record<string, unknown>
      >;
      const settings = (pg: string) =>
        (byPg[pg].settings as Record<string, unknown>[]).map(({ description, ...rest }) => {
          assert.equal(typeof description, 'string');
          return rest;
        });
      const timeout = { name: 'timeout_ms', required: false, secret: false, default: 8000 };
      assert.deepEqual(settings('mpgs'), [
        { name: 'merchant_id', required: true, secret: false, default: null },
        { name: 'api_password', required: true, secret: true, default: null },
        { name: 'api_base_url', required: true, secret: false, default: null },
        { name: 'api_version', required: false, secret: false, default: 100 },
        { name: 'notification_secret', required: false, secret: true, default: null },
        { name: 'merchant_name', required: false, secret: false, default: null },
        timeout,
      ]);
      assert.deepEqual(settings('knet'), [
        { name: 'tranportal_id', required: true, secret: false, default: null },
        { name: 'tranportal_password', required: true, secret: true, default: null },
        { name: 'resource_key', required: true, secret: true, default: null },
        { name: 'payment_url', required: false, secret: false, default: null },
        { name: 'inquiry_url', required: false, secret: false, default: null },
        timeout,
        { name: 'page_timeout_minutes', required: false, secret: false, default: 30 },
      ]);
      assert.deepEqual(settings('stripe'), [
        { name: 'secret_key', required: true, secret: true, default: null },
        { name: 'webhook_secret', required: false, secret: true, default: null },
        { name: 'api_base_url', required: false, secret: false, default: 'https://api.stripe.com' },
        timeout,
      ]);
      assert.deepEqual(settings('sandbox'), [timeout]);
      assert.deepEqual(settings('cash'), [timeout]);
      const { settings: _k, ...knet } = byPg.knet;
      assert.deepEqual(knet, {
        pg: 'knet',
        name: 'KNET',
        flow: 'redirect',
        operations: ['refund', 'partial_refund'],
        tokenizable: false,
        currencies: ['KWD'],
      });
      assert.equal(byPg.sandbox.flow, 'card_form');
      assert.equal(byPg.cash.flow, 'offline');
      assert.equal(byPg.mpgs.flow, 'redirect');
      assert.equal(byPg.stripe.currencies, null);
      assert.equal(byPg.stripe.tokenizable, true);
      assert.deepEqual(byPg.mpgs.operations, [
        'capture',
        'void',
        'refund',
        'partial_capture',
        'partial_refund',
      ]);
    });

    it('answers without the trailing slash too, and only to admins (401, 403)', async () => {
      await t.http().get(DRIVERS.slice(0, -1)).set('Authorization', adminAuth()).expect(200);
      await t.http().get(DRIVERS).expect(401);
      await t.http().get(DRIVERS).set('Authorization', s.merchant).expect(403);
      await t.http().get(DRIVERS).set('Authorization', s.apiKey).expect(401); // Basic auth only
    });
  });

  describe('validation (400 under settings.<key>)', () => {
    it('refuses the required settings missing, every one at once', async () => {
      assert.deepEqual(await create({ code: 'mpgs-none', pg: 'mpgs' }, 400), {
        settings: {
          merchant_id: ['This field is required.'],
          api_password: ['This field is required.'],
          api_base_url: ['This field is required.'],
        },
      });
      assert.deepEqual(
        await create({ code: 'knet-part', pg: 'knet', settings: { tranportal_id: '1' } }, 400),
        {
          settings: {
            tranportal_password: ['This field is required.'],
            resource_key: ['This field is required.'],
          },
        },
      );
      assert.deepEqual(await create({ code: 'stripe-none', pg: 'stripe', settings: {} }, 400), {
        settings: { secret_key: ['This field is required.'] },
      });
    });

    it('refuses keys the driver does not define, and settings that are not an object', async () => {
      assert.deepEqual(
        await create(
          { code: 'mpgs-extra', pg: 'mpgs', settings: mpgsSettings({ secret_key: 'x', colour: 1 }) },
          400,
        ),
        {
          settings: {
            secret_key: ['"secret_key" is not a setting of the mpgs driver.'],
            colour: ['"colour" is not a setting of the mpgs driver.'],
          },
        },
      );
      assert.deepEqual(await create({ code: 'sb-extra', pg: 'sandbox', settings: { api_key: 'x' } }, 400), {
        settings: { api_key: ['"api_key" is not a setting of the sandbox driver.'] },
      });
      for (const bad of ['text', [1], 5]) {
        assert.deepEqual(Object.keys(await create({ code: 'sb-bad', pg: 'sandbox', settings: bad }, 400)), [
          'settings',
        ]);
      }
    });

    it('checks each value: KNET resource key of 16 characters, timeout_ms 1..9000, text, https URLs', async () => {
      const knet = (more: Record<string, unknown>) => ({
        tranportal_id: '123456',
        tranportal_password: SECRETS.knetPassword,
        resource_key: SECRETS.knetKey,
        ...more,
      });
      assert.deepEqual(
        await create({ code: 'knet-key', pg: 'knet', settings: knet({ resource_key: 'K'.repeat(15) }) }, 400),
        { settings: { resource_key: ['Ensure this field has exactly 16 characters.'] } },
      );
      for (const [value, message] of [
        [0, 'Ensure this value is greater than or equal to 1.'],
        [9001, 'Ensure this value is less than or equal to 9000.'],
        [1.5, 'A valid integer is required.'],
        ['soon', 'A valid integer is required.'],
        [true, 'A valid integer is required.'],
      ] as const) {
        assert.deepEqual(
          await create({ code: 'sb-timeout', pg: 'sandbox', settings: { timeout_ms: value } }, 400),
          { settings: { timeout_ms: [message] } },
          String(value),
        );
      }
      assert.deepEqual(
        await create(
          {
            code: 'mpgs-values',
            pg: 'mpgs',
            settings: mpgsSettings({
              merchant_id: ' ',
              api_password: 42,
              api_base_url: 'http://test-gateway.mastercard.com',
              api_version: 62,
            }),
          },
          400,
        ),
        {
          settings: {
            merchant_id: ['This field may not be blank.'],
            api_password: ['Not a valid string.'],
            api_base_url: ['Enter an https URL (http only on a sandbox gateway).'],
            api_version: ['Ensure this value is greater than or equal to 63.'],
          },
        },
      );
      assert.deepEqual(
        await create(
          { code: 'mpgs-url', pg: 'mpgs', settings: mpgsSettings({ api_base_url: 'not a url' }) },
          400,
        ),
        { settings: { api_base_url: ['Enter a valid URL.'] } },
      );
      // A sandbox gateway may reach a simulator over http (docs/decisions.md).
      const sim = await create({
        code: 'mpgs-sim',
        pg: 'mpgs',
        type: 'sandbox',
        settings: mpgsSettings({ api_base_url: 'http://127.0.0.1:9999', timeout_ms: 9000 }),
      });
      assert.equal((sim.settings as Record<string, unknown>).api_base_url, 'http://127.0.0.1:9999');
      assert.equal(sim.tokenizable, true, 'the mpgs driver saves cards (MPGS tokens)');
      // ... and stays a sandbox gateway while that URL is http.
      assert.deepEqual(await patch('mpgs-sim', { type: 'production' }, 400), {
        settings: { api_base_url: ['Enter an https URL (http only on a sandbox gateway).'] },
      });
      assert.equal((await read('mpgs-sim')).type, 'sandbox');
    });

    it('refuses what the driver cannot do: KNET takes only KWD and saves no cards', async () => {
      const settings = { tranportal_id: '1', tranportal_password: 'p', resource_key: SECRETS.knetKey };
      assert.deepEqual(
        await create(
          { code: 'knet-usd', pg: 'knet', currencies: ['KWD', 'USD'], tokenizable: true, settings },
          400,
        ),
        {
          tokenizable: ['The knet driver cannot save cards.'],
          currencies: ['The knet driver takes only KWD, not "USD".'],
        },
      );
      const sandboxKnet = await create({ code: 'knet-sb', pg: 'knet', type: 'sandbox', settings });
      assert.equal(sandboxKnet.tokenizable, false, 'a sandbox gateway saves cards only when its driver can');
    });
  });

  describe('representation and PATCH', () => {
    it('shows settings without secrets, and secrets_set', async () => {
      const body = await create({
        code: 'mpgs-main',
        pg: 'mpgs',
        settings: mpgsSettings({ notification_secret: SECRETS.mpgsNotification, merchant_name: 'Shop' }),
      });
      assert.deepEqual(body.settings, {
        merchant_id: 'TEST0001',
        api_base_url: 'https://test-gateway.mastercard.com',
        merchant_name: 'Shop',
      });
      assert.deepEqual(body.secrets_set, ['api_password', 'notification_secret']);
      assert.deepEqual(await read('mpgs-main'), body);
      const list = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
      answers.push(list.text);
      assert.deepEqual(
        (list.body as Record<string, unknown>[]).find((g) => g.code === 'mpgs-main'),
        body,
      );
    });

    it('merges a PATCH: sent keys replace, left-out keys (secrets too) stay, null removes an optional key', async () => {
      await create({ code: 'mpgs-merge', pg: 'mpgs', settings: mpgsSettings({ merchant_name: 'Old' }) });
      const gateways = t.app.get(GatewaysService);
      const settings = t.app.get(GatewaySettings);
      const renamed = await patch('mpgs-merge', { settings: { merchant_name: 'New', api_version: 71 } });
      assert.deepEqual(renamed.settings, {
        merchant_id: 'TEST0001',
        api_base_url: 'https://test-gateway.mastercard.com',
        merchant_name: 'New',
        api_version: 71,
      });
      assert.deepEqual(renamed.secrets_set, ['api_password']);
      assert.equal(settings.of(await gateways.get('mpgs-merge')).api_password, SECRETS.mpgsPassword);

      const withSecret = await patch('mpgs-merge', {
        settings: { api_password: 'a-new-api-password', notification_secret: SECRETS.mpgsNotification },
      });
      assert.deepEqual(withSecret.secrets_set, ['api_password', 'notification_secret']);
      assert.equal(settings.of(await gateways.get('mpgs-merge')).api_password, 'a-new-api-password');

      const removed = await patch('mpgs-merge', {
        name: 'Renamed',
        settings: { merchant_name: null, notification_secret: null },
      });
      assert.deepEqual(removed.settings, {
        merchant_id: 'TEST0001',
        api_base_url: 'https://test-gateway.mastercard.com',
        api_version: 71,
      });
      assert.deepEqual(removed.secrets_set, ['api_password']);
      // Without `settings`, nothing of them changes.
      assert.deepEqual((await patch('mpgs-merge', { name: 'Again' })).settings, removed.settings);

      // A required key cannot be removed; the refused PATCH writes nothing.
      assert.deepEqual(
        await patch('mpgs-merge', { name: 'X', settings: { api_password: null, merchant_id: null } }, 400),
        {
          settings: { api_password: ['This field is required.'], merchant_id: ['This field is required.'] },
        },
      );
      const after = await read('mpgs-merge');
      assert.equal(after.name, 'Again');
      assert.deepEqual(after.secrets_set, ['api_password']);
    });

    it('starts from no settings when the pg changes, and checks the new driver', async () => {
      await create({ code: 'switch', pg: 'mpgs', settings: mpgsSettings() });
      assert.deepEqual(await patch('switch', { pg: 'stripe' }, 400), {
        settings: { secret_key: ['This field is required.'] },
      });
      assert.deepEqual(await patch('switch', { pg: 'stripe', settings: { merchant_id: 'TEST0001' } }, 400), {
        settings: {
          merchant_id: ['"merchant_id" is not a setting of the stripe driver.'],
          secret_key: ['This field is required.'],
        },
      });
      const stripe = await patch('switch', { pg: 'stripe', settings: { secret_key: SECRETS.stripeKey } });
      assert.deepEqual(stripe.settings, {});
      assert.deepEqual(stripe.secrets_set, ['secret_key']);
      const values = t.app.get(GatewaySettings).of(await t.app.get(GatewaysService).get('switch'));
      assert.deepEqual(values, {
        secret_key: SECRETS.stripeKey,
        api_base_url: 'https://api.stripe.com',
        timeout_ms: 8000,
      });
      assert.deepEqual(Object.keys(await patch('switch', { pg: 'mybank' }, 400)), ['pg']);
    });

    it('still changes the other fields of a stored gateway whose pg names no driver; its settings need a driver', async () => {
      await t.app
        .get(GatewaysService)
        .create(gatewayInput({ code: 'legacy', pg: 'mybank', type: 'production' }));
      const renamed = await patch('legacy', { name: 'Legacy bank', is_active: false });
      assert.equal(renamed.pg, 'mybank');
      assert.equal(renamed.name, 'Legacy bank');
      assert.deepEqual(await patch('legacy', { settings: { timeout_ms: 100 } }, 400), {
        pg: [
          '"mybank" is not a gateway driver; use one of "sandbox", "cash", "mpgs", "knet", "stripe", "router".',
        ],
      });
      assert.equal((await patch('legacy', { pg: 'sandbox', settings: { timeout_ms: 100 } })).pg, 'sandbox');
    });
  });

  describe('secrets at rest', () => {
    it('stores secrets encrypted under the key, noting its id; GatewaySettings.of decrypts and applies defaults', async () => {
      await create({
        code: 'knet-rest',
        pg: 'knet',
        settings: {
          tranportal_id: '123456',
          tranportal_password: SECRETS.knetPassword,
          resource_key: SECRETS.knetKey,
        },
      });
      const raw = await rawSecrets('knet-rest');
      assert.ok(raw);
      assert.ok(!raw.includes(SECRETS.knetPassword) && !raw.includes(SECRETS.knetKey), raw);
      assert.ok(!raw.includes(Buffer.from(SECRETS.knetKey).toString('base64')), raw);
      const stored = JSON.parse(raw) as Record<string, string>;
      const id = keyId(Buffer.from(TEST_SECRETS_KEY, 'base64'));
      for (const value of Object.values(stored)) assert.match(value, new RegExp(`^v1\\.${id}\\.`));
      assert.deepEqual(Object.keys(stored).sort(), ['resource_key', 'tranportal_password']);
      const values = t.app.get(GatewaySettings).of(await t.app.get(GatewaysService).get('knet-rest'));
      assert.deepEqual(values, {
        tranportal_id: '123456',
        tranportal_password: SECRETS.knetPassword,
        resource_key: SECRETS.knetKey,
        timeout_ms: 8000,
        page_timeout_minutes: 30,
        payment_url: 'https://www.kpay.com.kw/kpg/PaymentHTTP.htm',
        inquiry_url: 'https://www.kpay.com.kw/kpg/tranPipe.htm',
      });
      const sandbox = await t.app.get(GatewaysService).get('knet-sb');
      assert.equal(
        t.app.get(GatewaySettings).of(sandbox).payment_url,
        'https://www.kpaytest.com.kw/kpg/PaymentHTTP.htm',
      );
    });

    it('binds a stored secret to its gateway: a value copied to another gateway does not decrypt', async () => {
      const gateways = t.app.get(GatewaysService);
      const source = await gateways.get('knet-rest');
      await create({
        code: 'knet-copy',
        pg: 'knet',
        settings: { tranportal_id: '1', tranportal_password: 'p', resource_key: 'R'.repeat(16) },
      });
      await t.app
        .get(DataSource)
        .query('UPDATE gateways SET secrets = ? WHERE code = ?', [
          JSON.stringify(source.secrets),
          'knet-copy',
        ]);
      assert.throws(() => t.app.get(GatewaySettings).of(Object.assign(source, { code: 'knet-copy' })));
    });

    it('never answers a secret', () => {
      for (const secret of Object.values(SECRETS)) {
        for (const answer of answers)
          assert.ok(!answer.includes(secret), `an answer shows ${secret}: ${answer}`);
      }
      assert.ok(answers.length > 20);
    });
  });
});
