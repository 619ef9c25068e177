import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TXN_PATH, txnPath } from '../transactions/helpers';

const ADDRESS = { line1: 'Block 1', city: 'Salmiya', state: 'Hawalli', country: 'KW', postal_code: '22001' };
const BAD_JSON = ['Value must be valid JSON.'];

/** contract §1: create and update also take urlencoded and multipart bodies. */
describe('urlencoded and multipart bodies', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  /** POSTs a urlencoded body built from [key, value] pairs (repeated keys allowed). */
  const postForm = (pairs: [string, string][], path = TXN_PATH, method: 'post' | 'patch' = 'post') =>
    t
      .http()
      [method](path)
      .set('Authorization', s.apiKey)
      .type('form')
      .send(new URLSearchParams(pairs).toString());
  /** POSTs a multipart body built from [key, value] pairs (repeated keys allowed). */
  const postMultipart = (pairs: [string, string][], path = TXN_PATH, method: 'post' | 'patch' = 'post') => {
    let req = t.http()[method](path).set('Authorization', s.apiKey);
    for (const [key, value] of pairs) req = req.field(key, value);
    return req;
  };
  const REQUIRED: [string, string][] = [
    ['type', 'e_commerce'],
    ['amount', '12.5'],
    ['currency_code', 'kwd'],
  ];

  for (const [kind, send] of [
    ['urlencoded', postForm],
    ['multipart', postMultipart],
  ] as const) {
    describe(kind, () => {
      it('creates from a single-valued list key', async () => {
        const res = await send([...REQUIRED, ['pg_codes', 'sandbox']]);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual(res.body.pg_codes, ['sandbox']);
        assert.equal(res.body.amount, '12.500');
        assert.equal(res.body.currency_code, 'KWD');
      });

      it('reads a list from repeated keys', async () => {
        const res = await send([
          ...REQUIRED,
          ['pg_codes', 'sandbox'],
          ['email_recipients', 'a@example.com'],
          ['email_recipients', 'b@example.com'],
        ]);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual(res.body.email_recipients, ['a@example.com', 'b@example.com']);
        const two = await send([...REQUIRED, ['pg_codes', 'sandbox'], ['pg_codes', 'other']]);
        assert.deepEqual(two.body, { pg_codes: ['Exactly one gateway code must be provided.'] });
      });

      it('reads a list from a JSON string', async () => {
        const res = await send([
          ...REQUIRED,
          ['pg_codes', '["sandbox"]'],
          ['email_recipients', '["a@example.com", "b@example.com"]'],
        ]);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual(res.body.pg_codes, ['sandbox']);
        assert.deepEqual(res.body.email_recipients, ['a@example.com', 'b@example.com']);
      });

      it('reads dicts from JSON strings', async () => {
        const res = await send([
          ...REQUIRED,
          ['pg_codes', 'sandbox'],
          ['customer_phone', '+96550000000'],
          ['billing_address', JSON.stringify(ADDRESS)],
          ['notifications', '{"SMS": ["paid"]}'],
          ['extra', '{"cart": [1, 2], "gift": true}'],
        ]);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual(res.body.billing_address, ADDRESS);
        assert.deepEqual(res.body.notifications, { sms: ['paid'] });
        assert.deepEqual(res.body.extra, { cart: [1, 2], gift: true });
        assert.equal(res.body.customer_address_city, 'Salmiya');
      });

      it('answers a bad JSON string with 400 under each field', async () => {
        const res = await send([
          ...REQUIRED,
          ['pg_codes', '["sandbox"'],
          ['billing_address', '{line1: x}'],
          ['notifications', '{'],
          ['extra', 'not json'],
        ]);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, {
          pg_codes: BAD_JSON,
          billing_address: BAD_JSON,
          notifications: BAD_JSON,
          extra: BAD_JSON,
        });
      });

      it('validates decoded values like JSON ones', async () => {
        const res = await send([
          ...REQUIRED,
          ['pg_codes', 'sandbox'],
          ['extra', '[1, 2]'],
          ['billing_address', '{"country": "XX"}'],
          ['shortify_checkout_url', 'maybe'],
          ['amount', '0'],
        ]);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body.extra, ['Expected a dictionary of items but got type "list".']);
        assert.deepEqual(res.body.billing_address.country, [
          '"XX" is not a valid ISO 3166-1 alpha-2 country code.',
        ]);
        assert.deepEqual(res.body.shortify_checkout_url, ['Must be a valid boolean.']);
      });

      it('reads booleans from text', async () => {
        for (const [text, value] of [
          ['true', true],
          ['false', false],
          ['1', true],
          ['0', false],
        ] as const) {
          const res = await send([...REQUIRED, ['pg_codes', 'sandbox'], ['shortify_checkout_url', text]]);
          assert.equal(res.status, 201, text);
          assert.equal(res.body.shortify_checkout_url, value, text);
        }
      });

      it('treats empty inputs as not set', async () => {
        const res = await send([
          ...REQUIRED,
          ['pg_codes', 'sandbox'],
          ['webhook_url', ''],
          ['customer_email', ''],
          ['expiration_time', ''],
          ['language', ''],
          ['order_no', ''],
          ['billing_address', ''],
          ['notifications', ''],
          ['extra', ''],
          ['email_recipients', ''],
          ['shortify_checkout_url', ''],
        ]);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.webhook_url, '');
        assert.equal(res.body.expiration_time, '01:00:00');
        assert.equal(res.body.language, 'en');
        assert.equal(res.body.order_no, null);
        assert.equal(res.body.billing_address, null);
        assert.deepEqual(res.body.notifications, {});
        assert.deepEqual(res.body.extra, {});
        assert.deepEqual(res.body.email_recipients, []);
      });

      it('updates, and clears a field sent empty', async () => {
        const created = await createTransaction(t, s, {
          webhook_url: 'https://merchant.example.com/hook',
          billing_address: ADDRESS,
          email_recipients: ['a@example.com'],
        });
        const res = await send(
          [
            ['amount', '20'],
            ['webhook_url', ''],
            ['billing_address', ''],
            ['email_recipients', 'x@example.com'],
            ['email_recipients', 'y@example.com'],
          ],
          txnPath(created.session_id),
          'patch',
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.amount, '20.000');
        assert.equal(res.body.webhook_url, '');
        assert.equal(res.body.billing_address, null);
        assert.deepEqual(res.body.email_recipients, ['x@example.com', 'y@example.com']);
        assert.equal(res.body.currency_code, 'KWD');
      });
    });
  }

  describe('attachments (multipart only)', () => {
    it('refuses a file part whose bytes do not match its extension, with the other field errors', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .field('type', 'e_commerce')
        .field('amount', '0')
        .field('currency_code', 'KWD')
        .field('pg_codes', 'sandbox')
        .attach('attachment', Buffer.from('not a pdf at all'), 'invoice.pdf');
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body as object).sort(), ['amount', 'attachment']);
    });
    it('refuses a text part named attachment', async () => {
      const res = await postMultipart([...REQUIRED, ['pg_codes', 'sandbox'], ['attachment', 'invoice.pdf']]);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        attachment: ['The submitted data was not a file. Check the encoding type on the form.'],
      });
    });
  });

  describe('size limits', () => {
    it('answers 413 JSON for a urlencoded body over 1 MB', async () => {
      const res = await postForm([
        ...REQUIRED,
        ['pg_codes', 'sandbox'],
        ['padding', 'x'.repeat(1024 * 1024)],
      ]);
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, { detail: 'Request body is too large.' });
    });
    it('answers 413 JSON for a multipart field over 1 MB', async () => {
      const res = await postMultipart([
        ...REQUIRED,
        ['pg_codes', 'sandbox'],
        ['padding', 'x'.repeat(1024 * 1024 + 1)],
      ]);
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, { detail: 'Request body is too large.' });
    });
    it('answers a malformed multipart body with a 400 JSON body', async () => {
      const res = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('--xyz\r\nContent-Disposition: form-data; name="type"\r\n\r\ne_commerce');
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body as object), ['detail']);
    });
  });
});
