import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FieldErrors } from '../../src/common/errors/domain-errors';
import { CurrenciesService } from '../../src/currencies/currencies.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { PaymentsModule } from '../../src/payments/payments.module';
import { TransactionsModule } from '../../src/transactions/transactions.module';
import { TransactionsService } from '../../src/transactions/transactions.service';
import { gatewayInput } from '../setup/fixtures';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import { createTransaction, jsonBody, seedServiceWorld, type ServiceWorld } from '../setup/service-world';
import type { TxJson } from '../transactions/helpers';

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

/**
 * contract §4 request fields, each rule broken once and met at its limit, at the service tier:
 * TransactionsService.create and .update on a real database with the fields a JSON body carries.
 * A refusal is the FieldErrors tree the HTTP routes answer with 400 as it is. The e2e files
 * (test/transactions/create-fields and update) keep one round trip per route and status family;
 * docs/testing.md lists the cases moved here from them.
 */
describe('TransactionsService: request field rules', () => {
  let ctx: ServiceContext;
  let w: ServiceWorld;

  before(async () => {
    ctx = await createServiceContext({ imports: [TransactionsModule, PaymentsModule] });
    w = await seedServiceWorld(ctx);
    await ctx.get(CurrenciesService).create('EUR');
    const gateways = ctx.get(GatewaysService);
    await gateways.create(gatewayInput({ code: 'usd-only', currencies: ['USD'] }));
    await gateways.create(gatewayInput({ code: 'retired', isActive: false }));
    await gateways.create(gatewayInput({ code: 'tokenized', requireCustomerPhone: true }));
    await gateways.create(
      gatewayInput({ code: 'auth-gw', name: 'Authorize', operation: 'authorize', feePercent: '1' }),
    );
  });
  after(() => ctx.close());

  /** The representation of a transaction created with these fields (the 201 body). */
  const created = async (overrides: Record<string, unknown> = {}): Promise<TxJson> =>
    (await createTransaction(ctx, w.apiKey, overrides)).body;

  /** The field errors a create with these fields is refused with (the 400 body); fails if it is not. */
  async function errorsOf(overrides: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      await createTransaction(ctx, w.apiKey, overrides);
    } catch (error) {
      assert.ok(error instanceof FieldErrors, String(error));
      return error.errors;
    }
    assert.fail(`created, not refused: ${JSON.stringify(overrides).slice(0, 300)}`);
  }

  describe('type', () => {
    it('accepts payment_request and e_commerce', async () => {
      assert.equal((await created({ type: 'payment_request' })).type, 'payment_request');
      assert.equal((await created({ type: 'e_commerce' })).type, 'e_commerce');
    });
    it('refuses any other value', async () => {
      assert.deepEqual(await errorsOf({ type: 'E_COMMERCE' }), {
        type: ['"E_COMMERCE" is not a valid choice.'],
      });
    });
  });

  describe('amount', () => {
    it('accepts 13 integer digits and refuses 14', async () => {
      assert.equal((await created({ amount: '9999999999999' })).amount, '9999999999999.000');
      assert.deepEqual(await errorsOf({ amount: '10000000000000' }), {
        amount: ['Ensure that there are no more than 13 digits before the decimal point.'],
      });
    });
    it('must be greater than 0', async () => {
      for (const amount of ['0', '0.000', '-1']) {
        assert.deepEqual(await errorsOf({ amount }), {
          amount: ['Ensure this value is greater than 0.'],
        });
      }
      assert.equal((await created({ amount: '0.001' })).amount, '0.001');
    });
    it('refuses text outside ^\\d{1,13}(\\.\\d+)?$', async () => {
      for (const amount of ['1e3', ' 5', '5 ', '.5', '5.', '+5', '1,5', 'abc', '']) {
        const errors = await errorsOf({ amount });
        assert.deepEqual(Object.keys(errors), ['amount'], amount);
      }
    });
    it('allows as many decimals as the currency has: KWD 3, USD 2, JPY 0', async () => {
      assert.equal((await created({ amount: '12.345', currency_code: 'KWD' })).amount, '12.345');
      assert.deepEqual(await errorsOf({ amount: '12.3451', currency_code: 'KWD' }), {
        amount: ['Ensure that there are no more than 3 decimal places for KWD.'],
      });
      assert.equal((await created({ amount: '7.05', currency_code: 'USD' })).amount, '7.05');
      assert.deepEqual(await errorsOf({ amount: '7.055', currency_code: 'USD' }), {
        amount: ['Ensure that there are no more than 2 decimal places for USD.'],
      });
      assert.equal((await created({ amount: '1500', currency_code: 'JPY' })).amount, '1500');
      assert.deepEqual(await errorsOf({ amount: '1500.5', currency_code: 'JPY' }), {
        amount: ['Ensure that there are no more than 0 decimal places for JPY.'],
      });
    });
    it('does not count trailing zeros as decimals', async () => {
      assert.equal((await created({ amount: '12.5000000', currency_code: 'KWD' })).amount, '12.500');
      assert.equal((await created({ amount: '7.000', currency_code: 'USD' })).amount, '7.00');
      assert.equal((await created({ amount: '1500.00', currency_code: 'JPY' })).amount, '1500');
    });
    it('refuses non-text, non-number values', async () => {
      for (const amount of [true, {}, [], ['5']]) {
        assert.deepEqual(await errorsOf({ amount }), { amount: ['A valid number is required.'] });
      }
    });
  });

  describe('currency_code', () => {
    it('is case-insensitive and stored upper-case', async () => {
      const body = await created({ currency_code: 'kwd', amount: '1.5' });
      assert.equal(body.currency_code, 'KWD');
      assert.equal(body.payment_methods[0].currency_code, 'KWD');
    });
    it('must be 3 letters', async () => {
      for (const code of ['KW', 'KWDD', 'K1D']) {
        assert.deepEqual(await errorsOf({ currency_code: code }), {
          currency_code: ['Enter a valid 3-letter ISO 4217 currency code.'],
        });
      }
      assert.deepEqual(await errorsOf({ currency_code: 414 }), { currency_code: NOT_STRING });
    });
    it('must be configured', async () => {
      assert.deepEqual(await errorsOf({ currency_code: 'GBP' }), {
        currency_code: ['"GBP" is not a configured currency.'],
      });
    });
    it('must be accepted by the chosen gateway', async () => {
      assert.deepEqual(await errorsOf({ currency_code: 'EUR', amount: '5' }), {
        currency_code: ['Currency "EUR" is not accepted by gateway "sandbox".'],
      });
      assert.deepEqual(await errorsOf({ currency_code: 'KWD', pg_codes: ['usd-only'] }), {
        currency_code: ['Currency "KWD" is not accepted by gateway "usd-only".'],
      });
      const ok = await created({ currency_code: 'USD', amount: '5', pg_codes: ['usd-only'] });
      assert.deepEqual(ok.pg_codes, ['usd-only']);
    });
  });

  describe('pg_codes', () => {
    it('needs exactly one code', async () => {
      const exactlyOne = { pg_codes: ['Exactly one gateway code must be provided.'] };
      assert.deepEqual(await errorsOf({ pg_codes: [] }), exactlyOne);
      assert.deepEqual(await errorsOf({ pg_codes: ['sandbox', 'usd-only'] }), exactlyOne);
      assert.deepEqual((await created({ pg_codes: ['sandbox'] })).pg_codes, ['sandbox']);
    });
    it('must be a list of strings', async () => {
      assert.deepEqual(await errorsOf({ pg_codes: 'sandbox' }), {
        pg_codes: ['Expected a list of items but got type "str".'],
      });
      assert.deepEqual(await errorsOf({ pg_codes: { code: 'sandbox' } }), {
        pg_codes: ['Expected a list of items but got type "dict".'],
      });
      assert.deepEqual(await errorsOf({ pg_codes: [5] }), { pg_codes: NOT_STRING });
    });
    it('refuses an unknown code and an inactive gateway', async () => {
      assert.deepEqual(await errorsOf({ pg_codes: ['nope'] }), {
        pg_codes: ['"nope" is not a valid gateway code.'],
      });
      assert.deepEqual(await errorsOf({ pg_codes: ['retired'] }), {
        pg_codes: ['"retired" is not a valid gateway code.'],
      });
    });
  });

  it('mode: at most 32 characters, default "payment"', async () => {
    assert.equal((await created()).mode, 'payment');
    assert.equal((await created({ mode: 'm'.repeat(32) })).mode, 'm'.repeat(32));
    assert.deepEqual(await errorsOf({ mode: 'm'.repeat(33) }), { mode: maxLength(32) });
  });

  describe('webhook_url and redirect_url', () => {
    const url = (length: number) => {
      const prefix = 'https://example.com/';
      return prefix + 'a'.repeat(length - prefix.length);
    };
    for (const field of ['webhook_url', 'redirect_url']) {
      it(`${field}: an absolute http(s) URL of at most 200 characters`, async () => {
        assert.equal((await created({ [field]: url(200) }))[field], url(200));
        assert.equal((await created({ [field]: 'http://example.com' }))[field], 'http://example.com');
        assert.deepEqual(await errorsOf({ [field]: url(201) }), { [field]: maxLength(200) });
        for (const bad of [
          'ftp://example.com/x',
          '/relative/path',
          'example.com/x',
          'javascript:alert(1)',
          'http://',
        ]) {
          assert.deepEqual(await errorsOf({ [field]: bad }), { [field]: ['Enter a valid URL.'] }, bad);
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
        assert.deepEqual(await errorsOf({ webhook_url: host }), { webhook_url: PRIVATE_URL }, host);
      }
    });
    it('allows a public webhook host, and private hosts as redirect_url', async () => {
      const body = await created({
        webhook_url: 'https://93.184.216.34/hook',
        redirect_url: 'http://127.0.0.1:8000/done',
      });
      assert.equal(body.webhook_url, 'https://93.184.216.34/hook');
      assert.equal(body.redirect_url, 'http://127.0.0.1:8000/done');
    });
  });

  it('customer_id: at most 64 characters', async () => {
    assert.equal((await created({ customer_id: 'c'.repeat(64) })).customer_id, 'c'.repeat(64));
    assert.deepEqual(await errorsOf({ customer_id: 'c'.repeat(65) }), {
      customer_id: maxLength(64),
    });
  });

  it('customer names: at most 64 characters each', async () => {
    const ok = await created({
      customer_first_name: 'f'.repeat(64),
      customer_last_name: 'l'.repeat(64),
    });
    assert.equal(ok.customer_first_name, 'f'.repeat(64));
    assert.equal(ok.customer_last_name, 'l'.repeat(64));
    assert.deepEqual(
      await errorsOf({ customer_first_name: 'f'.repeat(65), customer_last_name: 'l'.repeat(65) }),
      { customer_first_name: maxLength(64), customer_last_name: maxLength(64) },
    );
  });

  it('counts characters as the database does: emoji are one, variation selectors count too', async () => {
    const emoji = await created({ customer_first_name: '😀'.repeat(64) });
    assert.equal(emoji.customer_first_name, '😀'.repeat(64));
    // 63 letters + "❤" + U+FE0F: 65 code points, too long for a 64-character column.
    assert.deepEqual(await errorsOf({ customer_first_name: `${'a'.repeat(63)}\u2764\uFE0F` }), {
      customer_first_name: maxLength(64),
    });
    assert.deepEqual(
      await errorsOf({ billing_address: address({ city: `${'c'.repeat(39)}\u2764\uFE0F` }) }),
      { billing_address: { city: maxLength(40) } },
    );
  });

  it('customer_email: a valid address of at most 128 characters', async () => {
    const email128 = `${'a'.repeat(64)}@${'b'.repeat(59)}.com`;
    assert.equal(email128.length, 128);
    assert.equal((await created({ customer_email: email128 })).customer_email, email128);
    assert.deepEqual(await errorsOf({ customer_email: `${'a'.repeat(64)}@${'b'.repeat(60)}.com` }), {
      customer_email: maxLength(128),
    });
    for (const bad of ['not-an-email', 'a@', '@b.com', 'a b@c.com']) {
      assert.deepEqual(await errorsOf({ customer_email: bad }), {
        customer_email: ['Enter a valid email address.'],
      });
    }
  });

  describe('customer_phone', () => {
    it('at most 12 characters of digits with an optional leading +', async () => {
      assert.equal((await created({ customer_phone: '+96550000000' })).customer_phone, '+96550000000');
      assert.equal((await created({ customer_phone: '965500000001' })).customer_phone, '965500000001');
      assert.deepEqual(await errorsOf({ customer_phone: '+965500000001' }), {
        customer_phone: maxLength(12),
      });
      for (const bad of ['965-5000', '+', '12+34', '5000 0000', 'phone']) {
        assert.deepEqual(
          await errorsOf({ customer_phone: bad }),
          { customer_phone: ['Enter a valid phone number: digits with an optional leading "+".'] },
          bad,
        );
      }
      assert.deepEqual(await errorsOf({ customer_phone: 96550000000 }), {
        customer_phone: NOT_STRING,
      });
    });
    it('is required by a gateway with require_customer_phone', async () => {
      assert.deepEqual(await errorsOf({ pg_codes: ['tokenized'] }), {
        customer_phone: ['This field is required by gateway "tokenized".'],
      });
      const ok = await created({ pg_codes: ['tokenized'], customer_phone: '+96550000000' });
      assert.equal(ok.customer_phone, '+96550000000');
    });
  });

  describe('billing_address', () => {
    it('stores a complete address, country upper-cased', async () => {
      const body = await created({
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
      assert.deepEqual((await created({ billing_address: full })).billing_address, full);
    });
    it('nests errors: required subfields, lengths and the country', async () => {
      assert.deepEqual(await errorsOf({ billing_address: { line2: 'x' } }), {
        billing_address: {
          line1: ['This field is required.'],
          city: ['This field is required.'],
          state: ['This field is required.'],
          country: ['This field is required.'],
          postal_code: ['This field is required.'],
        },
      });
      assert.deepEqual(
        await errorsOf({
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
        await errorsOf({
          billing_address: address({ line1: '', city: '', state: '', postal_code: '' }),
        }),
        { billing_address: { line1: blank, city: blank, state: blank, postal_code: blank } },
      );
      const ok = await created({ billing_address: address({ line2: '' }) });
      assert.equal(ok.billing_address.line1, 'Block 1, Street 2');
    });
    it('country must be a real ISO 3166-1 alpha-2 code', async () => {
      for (const country of ['XX', 'KWT', 'K', 'ZZ']) {
        const errors = await errorsOf({ billing_address: address({ country }) });
        assert.deepEqual(errors, {
          billing_address: { country: [`"${country}" is not a valid ISO 3166-1 alpha-2 country code.`] },
        });
      }
    });
    it('must be an object', async () => {
      assert.deepEqual(await errorsOf({ billing_address: ['KW'] }), {
        billing_address: ['Expected a dictionary of items but got type "list".'],
      });
      assert.deepEqual(await errorsOf({ billing_address: 'Kuwait' }), {
        billing_address: ['Expected a dictionary of items but got type "str".'],
      });
    });
    it('reports nested nulls and wrong types under each subfield', async () => {
      assert.deepEqual(
        await errorsOf({
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
      assert.equal((await created({ order_no: orderNo })).order_no, orderNo);
      assert.deepEqual(await errorsOf({ order_no: 'p'.repeat(129) }), { order_no: maxLength(128) });
    });
  });

  describe('notifications', () => {
    it('accepts keys in any case (SMS too) and stores them lower-case', async () => {
      const body = await created({
        notifications: { Email: ['created', 'paid'], SMS: ['paid'] },
        customer_email: 'c@example.com',
        customer_phone: '+96550000000',
      });
      assert.deepEqual(body.notifications, { email: ['created', 'paid'], sms: ['paid'] });
    });
    it('refuses an unknown channel by name (a silently dropped channel would never notify)', async () => {
      assert.deepEqual(
        await errorsOf({
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
      const body = await created({
        notifications: { email: events },
        customer_email: 'c@example.com',
      });
      assert.deepEqual(body.notifications, { email: events });
    });
    it('refuses an unknown event, reported under the channel', async () => {
      assert.deepEqual(
        await errorsOf({
          notifications: { email: ['created', 'shipped'] },
          customer_email: 'c@example.com',
        }),
        { notifications: { email: ['"shipped" is not a valid choice.'] } },
      );
    });
    it('refuses wrong shapes', async () => {
      assert.deepEqual(await errorsOf({ notifications: ['email'] }), {
        notifications: ['Expected a dictionary of items but got type "list".'],
      });
      assert.deepEqual(
        await errorsOf({
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
      assert.deepEqual(await errorsOf({ notifications: { email: ['paid'], SMS: ['paid'] } }), {
        customer_email: ['This field is required when notifications.email is set.'],
        customer_phone: ['This field is required when notifications.sms is set.'],
      });
    });
  });

  it('vendor_name: at most 64 characters', async () => {
    assert.equal((await created({ vendor_name: 'v'.repeat(64) })).vendor_name, 'v'.repeat(64));
    assert.deepEqual(await errorsOf({ vendor_name: 'v'.repeat(65) }), {
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
        const body = await created({ expiration_time: sent });
        assert.equal(body.expiration_time, echoed, sent);
        assert.equal(Date.parse(body.expires_at) - Date.parse(body.created_at), seconds * 1000, sent);
      }
    });
    it('must be above zero and at most 30 days', async () => {
      assert.deepEqual(await errorsOf({ expiration_time: '00:00:00' }), {
        expiration_time: ['Ensure this duration is greater than 00:00:00.'],
      });
      assert.deepEqual(await errorsOf({ expiration_time: '30 00:00:01' }), {
        expiration_time: ['Ensure this duration is no longer than 30 days (30 00:00:00).'],
      });
    });
    it('refuses other formats', async () => {
      for (const bad of ['1h', '01:60:00', '01:00', '-01:00:00', '1 day', 'P1D', '01:00:00.5']) {
        assert.deepEqual(
          await errorsOf({ expiration_time: bad }),
          {
            expiration_time: [
              'Duration has wrong format. Use one of these formats instead: HH:MM:SS, D HH:MM:SS.',
            ],
          },
          bad,
        );
      }
      assert.deepEqual(await errorsOf({ expiration_time: 3600 }), { expiration_time: NOT_STRING });
    });
  });

  describe('email_recipients', () => {
    const emails = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@example.com`);
    it('at most 20 valid e-mails', async () => {
      assert.deepEqual((await created({ email_recipients: emails(20) })).email_recipients, emails(20));
      assert.deepEqual(await errorsOf({ email_recipients: emails(21) }), {
        email_recipients: ['Ensure this field has no more than 20 elements.'],
      });
    });
    it('each address at most 128 characters', async () => {
      const email128 = `${'a'.repeat(64)}@${'b'.repeat(59)}.com`;
      const ok = await created({ email_recipients: [email128] });
      assert.deepEqual(ok.email_recipients, [email128]);
      assert.deepEqual(await errorsOf({ email_recipients: [`${'a'.repeat(64)}@${'b'.repeat(60)}.com`] }), {
        email_recipients: ['Ensure this field has no more than 128 characters.'],
      });
    });
    it('refuses an invalid address and a non-list', async () => {
      assert.deepEqual(await errorsOf({ email_recipients: ['ok@example.com', 'nope'] }), {
        email_recipients: ['Enter a valid email address.'],
      });
      assert.deepEqual(await errorsOf({ email_recipients: 'ok@example.com' }), {
        email_recipients: ['Expected a list of items but got type "str".'],
      });
      assert.deepEqual(await errorsOf({ email_recipients: [null] }), {
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
      assert.deepEqual((await created({ extra: atLimit })).extra, atLimit);
      assert.deepEqual(await errorsOf({ extra: ofJsonBytes(8193) }), {
        extra: ['Ensure this value has at most 8192 bytes as JSON.'],
      });
    });
    it('counts bytes, not characters', async () => {
      const multiByte = { note: 'é'.repeat(4091) }; // 4091 characters of 2 bytes: 8182 + 11 > 8192
      assert.deepEqual(await errorsOf({ extra: multiByte }), {
        extra: ['Ensure this value has at most 8192 bytes as JSON.'],
      });
    });
    it('keeps nested values as sent and refuses non-objects', async () => {
      const extra = { cart: [{ sku: 'A1', qty: 2 }], flags: { gift: true }, note: null };
      assert.deepEqual((await created({ extra })).extra, extra);
      assert.deepEqual(await errorsOf({ extra: [1, 2] }), {
        extra: ['Expected a dictionary of items but got type "list".'],
      });
      assert.deepEqual(await errorsOf({ extra: 'text' }), {
        extra: ['Expected a dictionary of items but got type "str".'],
      });
    });
  });

  it('product_type: at most 128 characters', async () => {
    assert.equal((await created({ product_type: 'p'.repeat(128) })).product_type, 'p'.repeat(128));
    assert.deepEqual(await errorsOf({ product_type: 'p'.repeat(129) }), {
      product_type: maxLength(128),
    });
  });

  it('language: an ISO 639-1 code (any case), default en', async () => {
    assert.equal((await created()).language, 'en');
    assert.equal((await created({ language: 'ar' })).language, 'ar');
    assert.equal((await created({ language: 'AR' })).language, 'ar');
    for (const bad of ['xx', 'ara', 'e', 'en-US']) {
      assert.deepEqual(await errorsOf({ language: bad }), {
        language: [`"${bad.toLowerCase()}" is not a valid ISO 639-1 language code.`],
      });
    }
  });

  it('shortify_attachment_url without an attachment is refused', async () => {
    assert.deepEqual(await errorsOf({ shortify_attachment_url: true }), {
      shortify_attachment_url: ['An attachment is required to shortify its URL.'],
    });
    assert.equal((await created({ shortify_attachment_url: false })).shortify_attachment_url, false);
    assert.deepEqual(await errorsOf({ shortify_attachment_url: 'perhaps' }), {
      shortify_attachment_url: ['Must be a valid boolean.'],
    });
  });

  describe('update re-checks the merged result', () => {
    const FULL = {
      type: 'payment_request',
      amount: '12.345',
      currency_code: 'KWD',
      mode: 'invoice',
      webhook_url: 'https://merchant.example.com/hook',
      redirect_url: 'https://merchant.example.com/done',
      customer_id: 'cust-1',
      customer_first_name: 'Layla',
      customer_last_name: 'Hassan',
      customer_email: 'layla@example.com',
      customer_phone: '+96550000000',
      billing_address: {
        line1: 'Block 1',
        city: 'Salmiya',
        state: 'Hawalli',
        country: 'KW',
        postal_code: '22001',
      },
      notifications: { email: ['paid'], sms: ['paid'] },
      vendor_name: 'Shop',
      expiration_time: '02:00:00',
      email_recipients: ['ops@example.com'],
      extra: { cart: ['a'] },
      product_type: 'books',
      language: 'ar',
    };
    let orderSeq = 0;
    /** A transaction with every field set (as test/transactions/update.e2e-spec.ts's FULL). */
    const full = (overrides: Record<string, unknown> = {}) =>
      created({ ...FULL, order_no: `SVC-UPD-${++orderSeq}`, ...overrides });
    const txWith = (overrides: Record<string, unknown> = {}) => created(overrides);
    /** A PATCH: the sent fields merged over the stored ones. */
    const patch = (sessionId: string, fields: Record<string, unknown>) =>
      ctx.get(TransactionsService).update(sessionId, w.apiKey, jsonBody(fields), { mode: 'partial' });
    /** What a GET answers: the representation and its ETag. */
    const retrieve = async (sessionId: string) => {
      const { etag, view } = await ctx.get(TransactionsService).retrieveUnlessCurrent(sessionId, undefined);
      assert.ok(view);
      return { body: view.body, etag };
    };
    /** The field errors an update is refused with, proving it wrote nothing. */
    const refused = async (sessionId: string, fields: Record<string, unknown>): Promise<unknown> => {
      const before = await retrieve(sessionId);
      let errors: unknown;
      await assert.rejects(patch(sessionId, fields), (error: unknown) => {
        assert.ok(error instanceof FieldErrors, String(error));
        errors = error.errors;
        return true;
      });
      assert.deepEqual(await retrieve(sessionId), before, 'a rejected update wrote something');
      return errors;
    };

    it('a new currency_code re-checks the stored amount decimals', async () => {
      const created = await full({ amount: '12.345' });
      assert.deepEqual(await refused(created.session_id, { currency_code: 'USD' }), {
        amount: ['Ensure that there are no more than 2 decimal places for USD.'],
      });
      const ok = await patch(created.session_id, { currency_code: 'usd', amount: '12.34' });
      assert.equal(ok.body.currency_code, 'USD');
      assert.equal(ok.body.amount, '12.34');
    });

    it('a new amount is checked against the stored currency', async () => {
      const created = await full({ currency_code: 'USD', amount: '5' });
      assert.deepEqual(await refused(created.session_id, { amount: '5.001' }), {
        amount: ['Ensure that there are no more than 2 decimal places for USD.'],
      });
      assert.equal((await patch(created.session_id, { amount: '5.10' })).body.amount, '5.10');
    });

    it('a new currency_code or gateway re-checks that the gateway accepts the currency', async () => {
      const created = await full({ amount: '5' });
      assert.deepEqual(await refused(created.session_id, { pg_codes: ['usd-only'] }), {
        currency_code: ['Currency "KWD" is not accepted by gateway "usd-only".'],
      });
      const ok = await patch(created.session_id, { pg_codes: ['usd-only'], currency_code: 'USD' });
      assert.deepEqual(ok.body.pg_codes, ['usd-only']);
      assert.equal(ok.body.payment_methods[0].code, 'usd-only');
      assert.deepEqual(await refused(created.session_id, { currency_code: 'KWD' }), {
        currency_code: ['Currency "KWD" is not accepted by gateway "usd-only".'],
      });
      assert.deepEqual(await refused(created.session_id, { pg_codes: ['retired'] }), {
        pg_codes: ['"retired" is not a valid gateway code.'],
      });
    });

    it('a new gateway brings its operation, fee and payment page', async () => {
      const created = await txWith({ amount: '10' });
      const res = await patch(created.session_id, { pg_codes: ['auth-gw'] });
      assert.equal(res.body.operation, 'authorize');
      assert.equal(res.body.payment_methods[0].code, 'auth-gw');
      assert.equal(res.body.payment_methods[0].fee, '0.100');
      assert.equal(
        res.body.payment_methods[0].redirect_url,
        `${ctx.config.publicBaseUrl}/b/checkout/pay/auth-gw/?session_id=${created.session_id}`,
      );
      assert.deepEqual((await retrieve(created.session_id)).body, res.body);
    });

    it('new notifications.email needs a stored or sent customer_email', async () => {
      const bare = await txWith();
      assert.deepEqual(await refused(bare.session_id, { notifications: { email: ['paid'] } }), {
        customer_email: ['This field is required when notifications.email is set.'],
      });
      const sent = await patch(bare.session_id, {
        notifications: { email: ['paid'] },
        customer_email: 'c@example.com',
      });
      assert.deepEqual(sent.body.notifications, { email: ['paid'] });
      const stored = await txWith({ customer_email: 'c@example.com' });
      const ok = await patch(stored.session_id, { notifications: { Email: ['created'] } });
      assert.deepEqual(ok.body.notifications, { email: ['created'] });
    });

    it('new notifications.sms (any key case) needs a stored or sent customer_phone', async () => {
      const bare = await txWith();
      assert.deepEqual(await refused(bare.session_id, { notifications: { SMS: ['paid'] } }), {
        customer_phone: ['This field is required when notifications.sms is set.'],
      });
      const stored = await txWith({ customer_phone: '+96550000000' });
      const ok = await patch(stored.session_id, { notifications: { SMS: ['paid'] } });
      assert.deepEqual(ok.body.notifications, { sms: ['paid'] });
    });

    it('clearing customer_email or customer_phone is refused while notifications need it', async () => {
      const created = await full();
      assert.deepEqual(await refused(created.session_id, { customer_email: null, customer_phone: '' }), {
        customer_email: ['This field is required when notifications.email is set.'],
        customer_phone: ['This field is required when notifications.sms is set.'],
      });
      const ok = await patch(created.session_id, {
        customer_email: null,
        customer_phone: null,
        notifications: null,
      });
      assert.equal(ok.body.customer_email, '');
      assert.equal(ok.body.customer_phone, '');
      assert.deepEqual(ok.body.notifications, {});
    });

    it('a gateway with require_customer_phone needs a stored or sent customer_phone', async () => {
      const bare = await txWith();
      assert.deepEqual(await refused(bare.session_id, { pg_codes: ['tokenized'] }), {
        customer_phone: ['This field is required by gateway "tokenized".'],
      });
      await patch(bare.session_id, { pg_codes: ['tokenized'], customer_phone: '+96551111111' });
      assert.deepEqual(await refused(bare.session_id, { customer_phone: null }), {
        customer_phone: ['This field is required by gateway "tokenized".'],
      });
    });

    it('a partial billing_address replaces the stored one and must be complete', async () => {
      const created = await full();
      assert.deepEqual(await refused(created.session_id, { billing_address: { city: 'Jahra' } }), {
        billing_address: {
          line1: ['This field is required.'],
          state: ['This field is required.'],
          country: ['This field is required.'],
          postal_code: ['This field is required.'],
        },
      });
    });
  });
});
