import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CurrenciesService } from '../../src/currencies/currencies.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { transactionBody } from '../factories/transaction.factory';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createErrors, createTransaction, postTransaction, TXN_PATH } from './helpers';

const NOT_STRING = ['Not a valid string.'];
const maxLength = (n: number) => [`Ensure this field has no more than ${n} characters.`];
const PRIVATE_URL = [
  'This URL points at a private or local address, which is not allowed unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (local development; set it and restart).',
];
const address = (overrides: Record<string, unknown> = {}) => ({
  line1: 'Block 1, Street 2',
  city: 'Kuwait City',
  state: 'Capital',
  country: 'KW',
  postal_code: '13001',
  ...overrides,
});

/** contract §4 request fields: each rule broken once, and met at its limit. */
describe('create: request field rules', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app.get(CurrenciesService).create('EUR');
    const gateways = t.app.get(GatewaysService);
    await gateways.create(gatewayInput({ code: 'usd-only', currencies: ['USD'] }));
    await gateways.create(gatewayInput({ code: 'retired', isActive: false }));
    await gateways.create(gatewayInput({ code: 'tokenized', requireCustomerPhone: true }));
  });
  after(() => t.close());

  describe('type', () => {
    it('accepts payment_request and e_commerce', async () => {
      assert.equal((await createTransaction(t, s, { type: 'payment_request' })).type, 'payment_request');
      assert.equal((await createTransaction(t, s, { type: 'e_commerce' })).type, 'e_commerce');
    });
    it('refuses any other value', async () => {
      assert.deepEqual(await createErrors(t, s, { type: 'E_COMMERCE' }), {
        type: ['"E_COMMERCE" is not a valid choice.'],
      });
    });
  });

  describe('amount', () => {
    it('accepts 13 integer digits and refuses 14', async () => {
      assert.equal((await createTransaction(t, s, { amount: '9999999999999' })).amount, '9999999999999.000');
      assert.deepEqual(await createErrors(t, s, { amount: '10000000000000' }), {
        amount: ['Ensure that there are no more than 13 digits before the decimal point.'],
      });
    });
    it('must be greater than 0', async () => {
      for (const amount of ['0', '0.000', '-1']) {
        assert.deepEqual(await createErrors(t, s, { amount }), {
          amount: ['Ensure this value is greater than 0.'],
        });
      }
      assert.equal((await createTransaction(t, s, { amount: '0.001' })).amount, '0.001');
    });
    it('refuses text outside ^\\d{1,13}(\\.\\d+)?$', async () => {
      for (const amount of ['1e3', ' 5', '5 ', '.5', '5.', '+5', '1,5', 'abc', '']) {
        const errors = await createErrors(t, s, { amount });
        assert.deepEqual(Object.keys(errors), ['amount'], amount);
      }
    });
    it('allows as many decimals as the currency has: KWD 3, USD 2, JPY 0', async () => {
      assert.equal(
        (await createTransaction(t, s, { amount: '12.345', currency_code: 'KWD' })).amount,
        '12.345',
      );
      assert.deepEqual(await createErrors(t, s, { amount: '12.3451', currency_code: 'KWD' }), {
        amount: ['Ensure that there are no more than 3 decimal places for KWD.'],
      });
      assert.equal((await createTransaction(t, s, { amount: '7.05', currency_code: 'USD' })).amount, '7.05');
      assert.deepEqual(await createErrors(t, s, { amount: '7.055', currency_code: 'USD' }), {
        amount: ['Ensure that there are no more than 2 decimal places for USD.'],
      });
      assert.equal((await createTransaction(t, s, { amount: '1500', currency_code: 'JPY' })).amount, '1500');
      assert.deepEqual(await createErrors(t, s, { amount: '1500.5', currency_code: 'JPY' }), {
        amount: ['Ensure that there are no more than 0 decimal places for JPY.'],
      });
    });
    it('does not count trailing zeros as decimals', async () => {
      assert.equal(
        (await createTransaction(t, s, { amount: '12.5000000', currency_code: 'KWD' })).amount,
        '12.500',
      );
      assert.equal((await createTransaction(t, s, { amount: '7.000', currency_code: 'USD' })).amount, '7.00');
      assert.equal(
        (await createTransaction(t, s, { amount: '1500.00', currency_code: 'JPY' })).amount,
        '1500',
      );
    });
    it('reads a JSON number as its decimal text, digits and all', async () => {
      const send = (json: string) =>
        t
          .http()
          .post(TXN_PATH)
          .set('Authorization', s.apiKey)
          .set('Content-Type', 'application/json')
          .send(json);
      const ok = await send(
        '{"type":"e_commerce","amount":12.50,"currency_code":"USD","pg_codes":["sandbox"]}',
      );
      assert.equal(ok.status, 201);
      assert.equal(ok.body.amount, '12.50');
      const tooPrecise = await send(
        '{"type":"e_commerce","amount":0.1000000000000000055511151231257827,"currency_code":"KWD","pg_codes":["sandbox"]}',
      );
      assert.equal(tooPrecise.status, 400);
      assert.deepEqual(Object.keys(tooPrecise.body as object), ['amount']);
      const exponent = await send(
        '{"type":"e_commerce","amount":1e3,"currency_code":"KWD","pg_codes":["sandbox"]}',
      );
      assert.deepEqual(exponent.body, { amount: ['A valid number is required.'] });
    });
    it('refuses non-text, non-number values', async () => {
      for (const amount of [true, {}, [], ['5']]) {
        assert.deepEqual(await createErrors(t, s, { amount }), { amount: ['A valid number is required.'] });
      }
    });
  });

  describe('currency_code', () => {
    it('is case-insensitive and stored upper-case', async () => {
      const body = await createTransaction(t, s, { currency_code: 'kwd', amount: '1.5' });
      assert.equal(body.currency_code, 'KWD');
      assert.equal(body.payment_methods[0].currency_code, 'KWD');
    });
    it('must be 3 letters', async () => {
      for (const code of ['KW', 'KWDD', 'K1D']) {
        assert.deepEqual(await createErrors(t, s, { currency_code: code }), {
          currency_code: ['Enter a valid 3-letter ISO 4217 currency code.'],
        });
      }
      assert.deepEqual(await createErrors(t, s, { currency_code: 414 }), { currency_code: NOT_STRING });
    });
    it('must be configured', async () => {
      assert.deepEqual(await createErrors(t, s, { currency_code: 'GBP' }), {
        currency_code: ['"GBP" is not a configured currency.'],
      });
    });
    it('must be accepted by the chosen gateway', async () => {
      assert.deepEqual(await createErrors(t, s, { currency_code: 'EUR', amount: '5' }), {
        currency_code: ['Currency "EUR" is not accepted by gateway "sandbox".'],
      });
      assert.deepEqual(await createErrors(t, s, { currency_code: 'KWD', pg_codes: ['usd-only'] }), {
        currency_code: ['Currency "KWD" is not accepted by gateway "usd-only".'],
      });
      const ok = await createTransaction(t, s, { currency_code: 'USD', amount: '5', pg_codes: ['usd-only'] });
      assert.deepEqual(ok.pg_codes, ['usd-only']);
    });
  });

  describe('pg_codes', () => {
    it('needs exactly one code', async () => {
      const exactlyOne = { pg_codes: ['Exactly one gateway code must be provided.'] };
      assert.deepEqual(await createErrors(t, s, { pg_codes: [] }), exactlyOne);
      assert.deepEqual(await createErrors(t, s, { pg_codes: ['sandbox', 'usd-only'] }), exactlyOne);
      assert.deepEqual((await createTransaction(t, s, { pg_codes: ['sandbox'] })).pg_codes, ['sandbox']);
    });
    it('must be a list of strings', async () => {
      assert.deepEqual(await createErrors(t, s, { pg_codes: 'sandbox' }), {
        pg_codes: ['Expected a list of items but got type "str".'],
      });
      assert.deepEqual(await createErrors(t, s, { pg_codes: { code: 'sandbox' } }), {
        pg_codes: ['Expected a list of items but got type "dict".'],
      });
      assert.deepEqual(await createErrors(t, s, { pg_codes: [5] }), { pg_codes: NOT_STRING });
    });
    it('refuses an unknown code and an inactive gateway', async () => {
      assert.deepEqual(await createErrors(t, s, { pg_codes: ['nope'] }), {
        pg_codes: ['"nope" is not a valid gateway code.'],
      });
      assert.deepEqual(await createErrors(t, s, { pg_codes: ['retired'] }), {
        pg_codes: ['"retired" is not a valid gateway code.'],
      });
    });
  });

  it('reports every missing required field at once', async () => {
    const res = await postTransaction(t, s, {});
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      type: ['This field is required.'],
      amount: ['This field is required.'],
      currency_code: ['This field is required.'],
      pg_codes: ['This field is required.'],
    });
  });

  it('mode: at most 32 characters, default "payment"', async () => {
    assert.equal((await createTransaction(t, s)).mode, 'payment');
    assert.equal((await createTransaction(t, s, { mode: 'm'.repeat(32) })).mode, 'm'.repeat(32));
    assert.deepEqual(await createErrors(t, s, { mode: 'm'.repeat(33) }), { mode: maxLength(32) });
  });

  describe('webhook_url and redirect_url', () => {
    const url = (length: number) => {
      const prefix = 'https://example.com/';
      return prefix + 'a'.repeat(length - prefix.length);
    };
    for (const field of ['webhook_url', 'redirect_url']) {
      it(`${field}: an absolute http(s) URL of at most 200 characters`, async () => {
        assert.equal((await createTransaction(t, s, { [field]: url(200) }))[field], url(200));
        assert.equal(
          (await createTransaction(t, s, { [field]: 'http://example.com' }))[field],
          'http://example.com',
        );
        assert.deepEqual(await createErrors(t, s, { [field]: url(201) }), { [field]: maxLength(200) });
        for (const bad of [
          'ftp://example.com/x',
          '/relative/path',
          'example.com/x',
          'javascript:alert(1)',
          'http://',
        ]) {
          assert.deepEqual(
            await createErrors(t, s, { [field]: bad }),
            { [field]: ['Enter a valid URL.'] },
            bad,
          );
        }
      });
    }
    it('refuses webhook hosts that are literal loopback, private, link-local or metadata addresses', async () => {
      for (const host of [
        'http://127.0.0.1/hook',
        'http://localhost:8080/hook',
        'http://10.1.2.3/hook',
        'http://172.16.0.1/hook',
        'http://192.168.1.1/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://metadata.google.internal/computeMetadata',
        'http://[::1]/hook',
        'http://[fe80::1]/hook',
        'http://[fd00::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://0.0.0.0/hook',
      ]) {
        assert.deepEqual(await createErrors(t, s, { webhook_url: host }), { webhook_url: PRIVATE_URL }, host);
      }
    });
    it('allows a public webhook host, and private hosts as redirect_url', async () => {
      const body = await createTransaction(t, s, {
        webhook_url: 'https://93.184.216.34/hook',
        redirect_url: 'http://127.0.0.1:8000/done',
      });
      assert.equal(body.webhook_url, 'https://93.184.216.34/hook');
      assert.equal(body.redirect_url, 'http://127.0.0.1:8000/done');
    });
  });

  it('customer_id: at most 64 characters', async () => {
    assert.equal(
      (await createTransaction(t, s, { customer_id: 'c'.repeat(64) })).customer_id,
      'c'.repeat(64),
    );
    assert.deepEqual(await createErrors(t, s, { customer_id: 'c'.repeat(65) }), {
      customer_id: maxLength(64),
    });
  });

  it('customer names: at most 64 characters each', async () => {
    const ok = await createTransaction(t, s, {
      customer_first_name: 'f'.repeat(64),
      customer_last_name: 'l'.repeat(64),
    });
    assert.equal(ok.customer_first_name, 'f'.repeat(64));
    assert.equal(ok.customer_last_name, 'l'.repeat(64));
    assert.deepEqual(
      await createErrors(t, s, { customer_first_name: 'f'.repeat(65), customer_last_name: 'l'.repeat(65) }),
      { customer_first_name: maxLength(64), customer_last_name: maxLength(64) },
    );
  });

  it('counts characters as the database does: emoji are one, variation selectors count too', async () => {
    const emoji = await createTransaction(t, s, { customer_first_name: '😀'.repeat(64) });
    assert.equal(emoji.customer_first_name, '😀'.repeat(64));
    // 63 letters + "❤" + U+FE0F: 65 code points, too long for a 64-character column.
    assert.deepEqual(await createErrors(t, s, { customer_first_name: `${'a'.repeat(63)}\u2764\uFE0F` }), {
      customer_first_name: maxLength(64),
    });
    assert.deepEqual(
      await createErrors(t, s, { billing_address: address({ city: `${'c'.repeat(39)}\u2764\uFE0F` }) }),
      { billing_address: { city: maxLength(40) } },
    );
  });

  it('customer_email: a valid address of at most 128 characters', async () => {
    const email128 = `${'a'.repeat(64)}@${'b'.repeat(59)}.com`;
    assert.equal(email128.length, 128);
    assert.equal((await createTransaction(t, s, { customer_email: email128 })).customer_email, email128);
    assert.deepEqual(
      await createErrors(t, s, { customer_email: `${'a'.repeat(64)}@${'b'.repeat(60)}.com` }),
      {
        customer_email: maxLength(128),
      },
    );
    for (const bad of ['not-an-email', 'a@', '@b.com', 'a b@c.com']) {
      assert.deepEqual(await createErrors(t, s, { customer_email: bad }), {
        customer_email: ['Enter a valid email address.'],
      });
    }
  });

  describe('customer_phone', () => {
    it('at most 12 characters of digits with an optional leading +', async () => {
      assert.equal(
        (await createTransaction(t, s, { customer_phone: '+96550000000' })).customer_phone,
        '+96550000000',
      );
      assert.equal(
        (await createTransaction(t, s, { customer_phone: '965500000001' })).customer_phone,
        '965500000001',
      );
      assert.deepEqual(await createErrors(t, s, { customer_phone: '+965500000001' }), {
        customer_phone: maxLength(12),
      });
      for (const bad of ['965-5000', '+', '12+34', '5000 0000', 'phone']) {
        assert.deepEqual(
          await createErrors(t, s, { customer_phone: bad }),
          { customer_phone: ['Enter a valid phone number: digits with an optional leading "+".'] },
          bad,
        );
      }
      assert.deepEqual(await createErrors(t, s, { customer_phone: 96550000000 }), {
        customer_phone: NOT_STRING,
      });
    });
    it('is required by a gateway with require_customer_phone', async () => {
      assert.deepEqual(await createErrors(t, s, { pg_codes: ['tokenized'] }), {
        customer_phone: ['This field is required by gateway "tokenized".'],
      });
      const ok = await createTransaction(t, s, { pg_codes: ['tokenized'], customer_phone: '+96550000000' });
      assert.equal(ok.customer_phone, '+96550000000');
    });
  });

  describe('billing_address', () => {
    it('stores a complete address, country upper-cased', async () => {
      const body = await createTransaction(t, s, {
        billing_address: address({ country: 'kw', line2: 'Floor 2' }),
      });
      assert.deepEqual(body.billing_address, address({ line2: 'Floor 2' }));
      assert.equal(body.customer_address_city, 'Kuwait City');
    });
    it('accepts every subfield at its limit', async () => {
      const full = address({
        line1: 'a'.repeat(128),
        line2: 'b'.repeat(128),
        city: 'c'.repeat(40),
        state: 's'.repeat(40),
        postal_code: 'p'.repeat(12),
      });
      assert.deepEqual((await createTransaction(t, s, { billing_address: full })).billing_address, full);
    });
    it('nests errors: required subfields, lengths and the country', async () => {
      assert.deepEqual(await createErrors(t, s, { billing_address: { line2: 'x' } }), {
        billing_address: {
          line1: ['This field is required.'],
          city: ['This field is required.'],
          state: ['This field is required.'],
          country: ['This field is required.'],
          postal_code: ['This field is required.'],
        },
      });
      assert.deepEqual(
        await createErrors(t, s, {
          billing_address: address({
            line1: 'a'.repeat(129),
            line2: 'b'.repeat(129),
            city: 'c'.repeat(41),
            state: 's'.repeat(41),
            postal_code: 'p'.repeat(13),
            country: 'XX',
          }),
        }),
        {
          billing_address: {
            line1: maxLength(128),
            line2: maxLength(128),
            city: maxLength(40),
            state: maxLength(40),
            country: ['"XX" is not a valid ISO 3166-1 alpha-2 country code.'],
            postal_code: maxLength(12),
          },
        },
      );
    });
    it('required subfields may not be blank; line2 may', async () => {
      const blank = ['This field may not be blank.'];
      assert.deepEqual(
        await createErrors(t, s, {
          billing_address: address({ line1: '', city: '', state: '', postal_code: '' }),
        }),
        { billing_address: { line1: blank, city: blank, state: blank, postal_code: blank } },
      );
      const ok = await createTransaction(t, s, { billing_address: address({ line2: '' }) });
      assert.equal(ok.billing_address.line1, 'Block 1, Street 2');
    });
    it('country must be a real ISO 3166-1 alpha-2 code', async () => {
      for (const country of ['XX', 'KWT', 'K', 'ZZ']) {
        const errors = await createErrors(t, s, { billing_address: address({ country }) });
        assert.deepEqual(errors, {
          billing_address: { country: [`"${country}" is not a valid ISO 3166-1 alpha-2 country code.`] },
        });
      }
    });
    it('must be an object', async () => {
      assert.deepEqual(await createErrors(t, s, { billing_address: ['KW'] }), {
        billing_address: ['Expected a dictionary of items but got type "list".'],
      });
      assert.deepEqual(await createErrors(t, s, { billing_address: 'Kuwait' }), {
        billing_address: ['Expected a dictionary of items but got type "str".'],
      });
    });
    it('reports nested nulls and wrong types under each subfield', async () => {
      assert.deepEqual(
        await createErrors(t, s, {
          billing_address: { line1: null, line2: 7, city: {}, state: [], country: null, postal_code: true },
        }),
        {
          billing_address: {
            line1: ['This field may not be null.'],
            line2: NOT_STRING,
            city: NOT_STRING,
            state: NOT_STRING,
            country: ['This field may not be null.'],
            postal_code: NOT_STRING,
          },
        },
      );
    });
  });

  describe('order_no', () => {
    it('at most 128 characters', async () => {
      const orderNo = 'o'.repeat(128);
      assert.equal((await createTransaction(t, s, { order_no: orderNo })).order_no, orderNo);
      assert.deepEqual(await createErrors(t, s, { order_no: 'p'.repeat(129) }), { order_no: maxLength(128) });
    });
  });

  describe('notifications', () => {
    it('accepts keys in any case (SMS too) and stores them lower-case', async () => {
      const body = await createTransaction(t, s, {
        notifications: { Email: ['created', 'paid'], SMS: ['paid'] },
        customer_email: 'c@example.com',
        customer_phone: '+96550000000',
      });
      assert.deepEqual(body.notifications, { email: ['created', 'paid'], sms: ['paid'] });
    });
    it('refuses an unknown channel by name (a silently dropped channel would never notify)', async () => {
      assert.deepEqual(
        await createErrors(t, s, {
          notifications: { push: ['paid'], Email: ['paid'] },
          customer_email: 'c@example.com',
        }),
        { notifications: { push: ['Unknown notification channel: use "email" or "sms".'] } },
      );
    });
    it('accepts every listed event', async () => {
      const events = [
        'created',
        'paid',
        'canceled',
        'failed',
        'expired',
        'authorized',
        'voided',
        'refunded',
        'captured',
      ];
      const body = await createTransaction(t, s, {
        notifications: { email: events },
        customer_email: 'c@example.com',
      });
      assert.deepEqual(body.notifications, { email: events });
    });
    it('refuses an unknown event, reported under the channel', async () => {
      assert.deepEqual(
        await createErrors(t, s, {
          notifications: { email: ['created', 'shipped'] },
          customer_email: 'c@example.com',
        }),
        { notifications: { email: ['"shipped" is not a valid choice.'] } },
      );
    });
    it('refuses wrong shapes', async () => {
      assert.deepEqual(await createErrors(t, s, { notifications: ['email'] }), {
        notifications: ['Expected a dictionary of items but got type "list".'],
      });
      assert.deepEqual(
        await createErrors(t, s, {
          notifications: { email: 'paid', sms: [5] },
          customer_email: 'c@example.com',
          customer_phone: '1',
        }),
        {
          notifications: {
            email: ['Expected a list of items but got type "str".'],
            sms: ['"5" is not a valid choice.'],
          },
        },
      );
    });
    it('email needs customer_email and sms needs customer_phone, reported under those fields', async () => {
      assert.deepEqual(await createErrors(t, s, { notifications: { email: ['paid'], SMS: ['paid'] } }), {
        customer_email: ['This field is required when notifications.email is set.'],
        customer_phone: ['This field is required when notifications.sms is set.'],
      });
    });
  });

  it('vendor_name: at most 64 characters', async () => {
    assert.equal(
      (await createTransaction(t, s, { vendor_name: 'v'.repeat(64) })).vendor_name,
      'v'.repeat(64),
    );
    assert.deepEqual(await createErrors(t, s, { vendor_name: 'v'.repeat(65) }), {
      vendor_name: maxLength(64),
    });
  });

  describe('expiration_time', () => {
    it('accepts HH:MM:SS and D HH:MM:SS, echoed normalised, with the deadline at created_at + duration', async () => {
      for (const [sent, echoed, seconds] of [
        ['00:30:00', '00:30:00', 1800],
        ['1:00:00', '01:00:00', 3600],
        ['24:00:00', '1 00:00:00', 86400],
        ['1 00:00:00', '1 00:00:00', 86400],
        ['2 03:04:05', '2 03:04:05', 2 * 86400 + 3 * 3600 + 4 * 60 + 5],
        ['00:00:01', '00:00:01', 1],
        ['30 00:00:00', '30 00:00:00', 30 * 86400],
      ] as const) {
        const body = await createTransaction(t, s, { expiration_time: sent });
        assert.equal(body.expiration_time, echoed, sent);
        assert.equal(Date.parse(body.expires_at) - Date.parse(body.created_at), seconds * 1000, sent);
      }
    });
    it('must be above zero and at most 30 days', async () => {
      assert.deepEqual(await createErrors(t, s, { expiration_time: '00:00:00' }), {
        expiration_time: ['Ensure this duration is greater than 00:00:00.'],
      });
      assert.deepEqual(await createErrors(t, s, { expiration_time: '30 00:00:01' }), {
        expiration_time: ['Ensure this duration is no longer than 30 days (30 00:00:00).'],
      });
    });
    it('refuses other formats', async () => {
      for (const bad of ['1h', '01:60:00', '01:00', '-01:00:00', '1 day', 'P1D', '01:00:00.5']) {
        assert.deepEqual(
          await createErrors(t, s, { expiration_time: bad }),
          {
            expiration_time: [
              'Duration has wrong format. Use one of these formats instead: HH:MM:SS, D HH:MM:SS.',
            ],
          },
          bad,
        );
      }
      assert.deepEqual(await createErrors(t, s, { expiration_time: 3600 }), { expiration_time: NOT_STRING });
    });
  });

  describe('email_recipients', () => {
    const emails = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@example.com`);
    it('at most 20 valid e-mails', async () => {
      assert.deepEqual(
        (await createTransaction(t, s, { email_recipients: emails(20) })).email_recipients,
        emails(20),
      );
      assert.deepEqual(await createErrors(t, s, { email_recipients: emails(21) }), {
        email_recipients: ['Ensure this field has no more than 20 elements.'],
      });
    });
    it('each address at most 128 characters', async () => {
      const email128 = `${'a'.repeat(64)}@${'b'.repeat(59)}.com`;
      const ok = await createTransaction(t, s, { email_recipients: [email128] });
      assert.deepEqual(ok.email_recipients, [email128]);
      assert.deepEqual(
        await createErrors(t, s, { email_recipients: [`${'a'.repeat(64)}@${'b'.repeat(60)}.com`] }),
        {
          email_recipients: ['Ensure this field has no more than 128 characters.'],
        },
      );
    });
    it('refuses an invalid address and a non-list', async () => {
      assert.deepEqual(await createErrors(t, s, { email_recipients: ['ok@example.com', 'nope'] }), {
        email_recipients: ['Enter a valid email address.'],
      });
      assert.deepEqual(await createErrors(t, s, { email_recipients: 'ok@example.com' }), {
        email_recipients: ['Expected a list of items but got type "str".'],
      });
      assert.deepEqual(await createErrors(t, s, { email_recipients: [null] }), {
        email_recipients: NOT_STRING,
      });
    });
  });

  describe('extra', () => {
    const ofJsonBytes = (bytes: number) => {
      const extra = { note: '' };
      extra.note = 'x'.repeat(bytes - JSON.stringify(extra).length);
      return extra;
    };
    it('an object of at most 8 KB as JSON', async () => {
      const atLimit = ofJsonBytes(8192);
      assert.equal(JSON.stringify(atLimit).length, 8192);
      assert.deepEqual((await createTransaction(t, s, { extra: atLimit })).extra, atLimit);
      assert.deepEqual(await createErrors(t, s, { extra: ofJsonBytes(8193) }), {
        extra: ['Ensure this value has at most 8192 bytes as JSON.'],
      });
    });
    it('counts bytes, not characters', async () => {
      const multiByte = { note: 'é'.repeat(4091) }; // 4091 characters of 2 bytes: 8182 + 11 > 8192
      assert.deepEqual(await createErrors(t, s, { extra: multiByte }), {
        extra: ['Ensure this value has at most 8192 bytes as JSON.'],
      });
    });
    it('keeps nested values as sent and refuses non-objects', async () => {
      const extra = { cart: [{ sku: 'A1', qty: 2 }], flags: { gift: true }, note: null };
      assert.deepEqual((await createTransaction(t, s, { extra })).extra, extra);
      assert.deepEqual(await createErrors(t, s, { extra: [1, 2] }), {
        extra: ['Expected a dictionary of items but got type "list".'],
      });
      assert.deepEqual(await createErrors(t, s, { extra: 'text' }), {
        extra: ['Expected a dictionary of items but got type "str".'],
      });
    });
  });

  it('product_type: at most 128 characters', async () => {
    assert.equal(
      (await createTransaction(t, s, { product_type: 'p'.repeat(128) })).product_type,
      'p'.repeat(128),
    );
    assert.deepEqual(await createErrors(t, s, { product_type: 'p'.repeat(129) }), {
      product_type: maxLength(128),
    });
  });

  it('language: an ISO 639-1 code (any case), default en', async () => {
    assert.equal((await createTransaction(t, s)).language, 'en');
    assert.equal((await createTransaction(t, s, { language: 'ar' })).language, 'ar');
    assert.equal((await createTransaction(t, s, { language: 'AR' })).language, 'ar');
    for (const bad of ['xx', 'ara', 'e', 'en-US']) {
      assert.deepEqual(await createErrors(t, s, { language: bad }), {
        language: [`"${bad.toLowerCase()}" is not a valid ISO 639-1 language code.`],
      });
    }
  });

  it('shortify_attachment_url without an attachment is refused', async () => {
    assert.deepEqual(await createErrors(t, s, { shortify_attachment_url: true }), {
      shortify_attachment_url: ['An attachment is required to shortify its URL.'],
    });
    assert.equal(
      (await createTransaction(t, s, { shortify_attachment_url: false })).shortify_attachment_url,
      false,
    );
    assert.deepEqual(await createErrors(t, s, { shortify_attachment_url: 'perhaps' }), {
      shortify_attachment_url: ['Must be a valid boolean.'],
    });
  });

  it('ignores unknown fields and read-only fields', async () => {
    const body = await createTransaction(t, s, {
      session_id: 'f'.repeat(40),
      state: 'paid',
      checkout_url: 'https://evil.example/checkout',
      payment_methods: [{ code: 'x', fee: '0' }],
      operation: 'authorize',
      initiator_id: 99,
      created_at: '2000-01-01T00:00:00Z',
      paid_amount: '86.000',
      surprise: { nested: true },
    });
    assert.notEqual(body.session_id, 'f'.repeat(40));
    assert.equal(body.state, 'created');
    assert.equal(body.operation, 'purchase');
    assert.equal(body.initiator_id, null);
    assert.equal(body.paid_amount, '0.000');
    assert.equal(body.checkout_url, `${t.url}/b/checkout/redirect/start/?session_id=${body.session_id}`);
    assert.equal(body.payment_methods[0].code, 'sandbox');
    assert.notEqual(body.created_at, '2000-01-01T00:00:00.000Z');
    assert.equal('surprise' in body, false);
  });

  it('treats an explicit null for an optional field as not set', async () => {
    const body = await createTransaction(t, s, {
      mode: null,
      webhook_url: null,
      redirect_url: null,
      customer_id: null,
      customer_first_name: null,
      customer_last_name: null,
      customer_email: null,
      customer_phone: null,
      billing_address: null,
      order_no: null,
      notifications: null,
      vendor_name: null,
      expiration_time: null,
      email_recipients: null,
      extra: null,
      product_type: null,
      language: null,
      shortify_attachment_url: null,
      shortify_checkout_url: null,
      attachment: null,
    });
    assert.equal(body.mode, 'payment');
    assert.equal(body.webhook_url, '');
    assert.equal(body.customer_email, '');
    assert.equal(body.billing_address, null);
    assert.equal(body.order_no, null);
    assert.deepEqual(body.notifications, {});
    assert.equal(body.expiration_time, '01:00:00');
    assert.deepEqual(body.email_recipients, []);
    assert.deepEqual(body.extra, {});
    assert.equal(body.language, 'en');
    assert.equal(body.shortify_checkout_url, false);
  });

  it('treats an empty string for an optional field as not set (unset fields are echoed as "")', async () => {
    const body = await createTransaction(t, s, {
      webhook_url: '',
      redirect_url: '',
      customer_email: '',
      customer_phone: '',
      order_no: '',
      language: '',
      mode: '',
    });
    assert.equal(body.webhook_url, '');
    assert.equal(body.customer_email, '');
    assert.equal(body.order_no, null);
    assert.equal(body.expiration_time, '01:00:00');
    assert.equal(body.language, 'en');
    assert.equal(body.mode, 'payment');
  });

  it('reports every violation of one request together', async () => {
    const res = await postTransaction(
      t,
      s,
      transactionBody({
        type: 'shop',
        amount: '-1',
        currency_code: 'XYZ',
        mode: 'm'.repeat(33),
        webhook_url: 'ftp://x',
        customer_email: 'nope',
        billing_address: { country: 'XX' },
        expiration_time: '31 00:00:00',
        language: 'zz',
      }),
    );
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body as object).sort(), [
      'amount',
      'billing_address',
      'currency_code',
      'customer_email',
      'expiration_time',
      'language',
      'mode',
      'type',
      'webhook_url',
    ]);
  });
});
