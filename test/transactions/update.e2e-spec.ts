import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TransactionState } from '../../src/transactions/transaction-state';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, forceState, TxJson, TXN_PATH, txnPath } from './helpers';

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
  order_no: 'UPD-FULL',
  notifications: { email: ['paid'], sms: ['paid'] },
  vendor_name: 'Shop',
  expiration_time: '02:00:00',
  email_recipients: ['ops@example.com'],
  extra: { cart: ['a'] },
  product_type: 'books',
  language: 'ar',
};

/**
 * contract §4 "Update rules" over HTTP. How an update re-checks the merged result (each rule's
 * variants) runs at the service tier: test/services/transaction-fields.service-spec.ts.
 */
describe('update a payment transaction', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const patch = (sessionId: string, body: object) =>
    t.http().patch(txnPath(sessionId)).set('Authorization', s.apiKey).send(body);
  const retrieve = async (sessionId: string) => {
    const res = await t.http().get(txnPath(sessionId)).expect(200);
    return { body: res.body as TxJson, etag: res.headers.etag };
  };
  /** Sends an update that must be refused with 400 and proves it wrote nothing. */
  const refused = async (sessionId: string, body: object): Promise<unknown> => {
    const before = await retrieve(sessionId);
    const res = await patch(sessionId, body);
    assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 500));
    assert.deepEqual(await retrieve(sessionId), before, 'a rejected update wrote something');
    return res.body;
  };
  let orderSeq = 0;
  const full = (overrides: Record<string, unknown> = {}) =>
    createTransaction(t, s, { ...FULL, order_no: `UPD-${++orderSeq}`, ...overrides });

  it('changes only the fields sent', async () => {
    const created = await full();
    const res = await patch(created.session_id, { amount: '20' }).expect(200);
    const updated = res.body as TxJson;
    assert.equal(updated.amount, '20.000');
    assert.equal(updated.payment_methods[0].amount, '20.000');
    const changed = new Set(['amount', 'payment_methods', 'updated_at']);
    for (const key of Object.keys(created)) {
      if (!changed.has(key)) assert.deepEqual(updated[key], created[key], key);
    }
    assert.ok(Date.parse(updated.updated_at) >= Date.parse(created.updated_at));
    assert.deepEqual((await retrieve(created.session_id)).body, updated);
    assert.equal(res.headers.etag, '"2"');
  });

  it('ignores read-only and unknown fields', async () => {
    const created = await full();
    const res = await patch(created.session_id, {
      state: 'paid',
      session_id: 'f'.repeat(40),
      checkout_url: 'https://evil.example',
      operation: 'authorize',
      paid_amount: '12.345',
      surprise: 1,
      vendor_name: 'Renamed',
    }).expect(200);
    assert.equal(res.body.state, 'created');
    assert.equal(res.body.session_id, created.session_id);
    assert.equal(res.body.checkout_url, created.checkout_url);
    assert.equal(res.body.operation, 'purchase');
    assert.equal(res.body.paid_amount, '0.000');
    assert.equal(res.body.vendor_name, 'Renamed');
    assert.equal('surprise' in res.body, false);
  });

  it('runs every field rule on the sent fields, all violations together, writing nothing', async () => {
    const created = await full();
    assert.deepEqual(
      await refused(created.session_id, {
        amount: '0',
        type: 'shop',
        customer_email: 'nope',
        billing_address: { country: 'XX', line1: 'a', city: 'c', state: 's', postal_code: '1' },
        expiration_time: '30 00:00:01',
        language: 'zz',
        pg_codes: ['nope'],
      }),
      {
        type: ['"shop" is not a valid choice.'],
        amount: ['Ensure this value is greater than 0.'],
        pg_codes: ['"nope" is not a valid gateway code.'],
        customer_email: ['Enter a valid email address.'],
        billing_address: { country: ['"XX" is not a valid ISO 3166-1 alpha-2 country code.'] },
        expiration_time: ['Ensure this duration is no longer than 30 days (30 00:00:00).'],
        language: ['"zz" is not a valid ISO 639-1 language code.'],
      },
    );
  });

  it('clears optional fields sent as null', async () => {
    const created = await full();
    const res = await patch(created.session_id, {
      mode: null,
      webhook_url: null,
      redirect_url: null,
      customer_id: null,
      customer_first_name: null,
      customer_last_name: null,
      notifications: null,
      customer_email: null,
      customer_phone: null,
      billing_address: null,
      order_no: null,
      vendor_name: null,
      expiration_time: null,
      email_recipients: null,
      extra: null,
      product_type: null,
      language: null,
    }).expect(200);
    const body = res.body as TxJson;
    assert.equal(body.mode, 'payment');
    for (const key of [
      'webhook_url',
      'redirect_url',
      'customer_id',
      'customer_first_name',
      'customer_last_name',
      'customer_email',
      'customer_phone',
      'customer_address_city',
      'vendor_name',
      'product_type',
    ]) {
      assert.equal(body[key], '', key);
    }
    assert.equal(body.billing_address, null);
    assert.equal(body.order_no, null);
    assert.deepEqual(body.notifications, {});
    assert.deepEqual(body.email_recipients, []);
    assert.deepEqual(body.extra, {});
    assert.equal(body.language, 'en');
    assert.equal(body.expiration_time, '01:00:00');
    assert.equal(Date.parse(body.expires_at), Date.parse(created.created_at) + 3600_000);
    assert.deepEqual((await retrieve(created.session_id)).body, body);
  });

  it('refuses null for a required field', async () => {
    const created = await createTransaction(t, s);
    assert.deepEqual(
      await refused(created.session_id, { type: null, amount: null, currency_code: null, pg_codes: null }),
      {
        type: ['This field may not be null.'],
        amount: ['This field may not be null.'],
        currency_code: ['This field may not be null.'],
        pg_codes: ['This field may not be null.'],
      },
    );
  });

  it('recomputes expires_at from created_at when expiration_time changes', async () => {
    const created = await createTransaction(t, s, { expiration_time: '00:10:00' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const res = await patch(created.session_id, { expiration_time: '3 00:00:00' }).expect(200);
    assert.equal(res.body.expiration_time, '3 00:00:00');
    assert.equal(res.body.created_at, created.created_at);
    assert.equal(Date.parse(res.body.expires_at), Date.parse(created.created_at) + 3 * 86400_000);
    assert.ok(Date.parse(res.body.updated_at) > Date.parse(created.updated_at));
  });

  it('keeps expires_at when other fields change', async () => {
    const created = await createTransaction(t, s, { expiration_time: '00:10:00' });
    const res = await patch(created.session_id, { vendor_name: 'x' }).expect(200);
    assert.equal(res.body.expires_at, created.expires_at);
  });

  describe('state guard', () => {
    for (const state of ['failed', 'error'] as const) {
      it(`allows an update while ${state}`, async () => {
        const created = await createTransaction(t, s);
        await forceState(t, created.session_id, state);
        const res = await patch(created.session_id, { amount: '1' }).expect(200);
        assert.equal(res.body.state, state);
        assert.equal(res.body.amount, '1.000');
      });
    }
    const closed: TransactionState[] = [
      'paid',
      'authorized',
      'captured',
      'canceled',
      'expired',
      'voided',
      'refunded',
    ];
    for (const state of closed) {
      it(`refuses an update while ${state} with 409, writing nothing`, async () => {
        const created = await createTransaction(t, s);
        await forceState(t, created.session_id, state);
        const before = await retrieve(created.session_id);
        const res = await patch(created.session_id, { amount: '1' });
        assert.equal(res.status, 409);
        assert.deepEqual(res.body, { detail: `A transaction in state "${state}" can no longer be updated.` });
        assert.deepEqual(await retrieve(created.session_id), before);
      });
    }
    it('answers 409 before looking at the body', async () => {
      const created = await createTransaction(t, s);
      await forceState(t, created.session_id, 'paid');
      const res = await patch(created.session_id, { amount: 'not a number' });
      assert.equal(res.status, 409);
    });
  });

  describe('ETag and If-Match', () => {
    it('returns the row version as ETag on create, retrieve and update', async () => {
      const created = await t
        .http()
        .post(TXN_PATH)
        .set('Authorization', s.apiKey)
        .send({
          type: 'e_commerce',
          amount: '1',
          currency_code: 'KWD',
          pg_codes: ['sandbox'],
        });
      const id = created.body.session_id as string;
      assert.equal(created.headers.etag, '"1"');
      assert.equal((await retrieve(id)).etag, '"1"');
      assert.equal((await patch(id, { amount: '2' }).expect(200)).headers.etag, '"2"');
      assert.equal((await retrieve(id)).etag, '"2"');
    });

    it('applies an update whose If-Match still matches', async () => {
      const created = await createTransaction(t, s);
      const { etag } = await retrieve(created.session_id);
      for (const ifMatch of [etag, `"99", ${etag}`]) {
        const current = (await retrieve(created.session_id)).etag;
        const header = ifMatch.replace(etag, current);
        const res = await t
          .http()
          .patch(txnPath(created.session_id))
          .set('Authorization', s.apiKey)
          .set('If-Match', header)
          .send({ vendor_name: header })
          .expect(200);
        assert.equal(res.body.vendor_name, header);
      }
      await t
        .http()
        .patch(txnPath(created.session_id))
        .set('Authorization', s.apiKey)
        .set('If-Match', '*')
        .send({ vendor_name: 'star' })
        .expect(200);
    });

    it('refuses with 412 an If-Match holding the current tag as a weak one (strong comparison)', async () => {
      const created = await createTransaction(t, s);
      const before = await retrieve(created.session_id);
      const res = await t
        .http()
        .patch(txnPath(created.session_id))
        .set('Authorization', s.apiKey)
        .set('If-Match', `W/${before.etag}`)
        .send({ vendor_name: 'weak' });
      assert.equal(res.status, 412);
      assert.deepEqual(await retrieve(created.session_id), before);
    });

    it('refuses with 412 an update whose If-Match is stale, writing nothing', async () => {
      const created = await createTransaction(t, s);
      const first = await retrieve(created.session_id);
      await patch(created.session_id, { amount: '3' }).expect(200); // another writer
      const before = await retrieve(created.session_id);
      const res = await t
        .http()
        .patch(txnPath(created.session_id))
        .set('Authorization', s.apiKey)
        .set('If-Match', first.etag)
        .send({ amount: '4' });
      assert.equal(res.status, 412);
      assert.deepEqual(Object.keys(res.body as object), ['detail']);
      assert.deepEqual(await retrieve(created.session_id), before);
    });

    it('lets only one of two writers holding the same ETag win', async () => {
      const created = await createTransaction(t, s);
      const { etag } = await retrieve(created.session_id);
      const send = (amount: string) =>
        t
          .http()
          .patch(txnPath(created.session_id))
          .set('Authorization', s.apiKey)
          .set('If-Match', etag)
          .send({ amount });
      const [a, b] = await Promise.all([send('5'), send('6')]);
      assert.deepEqual([a.status, b.status].sort(), [200, 412]);
      const winner = a.status === 200 ? a : b;
      assert.equal((await retrieve(created.session_id)).body.amount, winner.body.amount);
    });
  });

  describe('who and what', () => {
    it('answers 404 for an unknown or malformed session', async () => {
      for (const id of ['0'.repeat(40), 'nope']) {
        const res = await patch(id, { amount: '1' });
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { detail: 'Not found.' });
      }
    });
    it('needs an API key: none → 401, Basic → 401', async () => {
      const created = await createTransaction(t, s);
      const none = await t.http().patch(txnPath(created.session_id)).send({ amount: '1' });
      assert.equal(none.status, 401);
      assert.deepEqual(none.body, { detail: 'Authentication credentials were not provided.' });
      const basic = await t
        .http()
        .patch(txnPath(created.session_id))
        .set('Authorization', s.merchant)
        .send({ amount: '1' });
      assert.equal(basic.status, 401);
    });
    it('accepts an empty body and changes nothing the caller can see', async () => {
      const created = await full();
      const res = await patch(created.session_id, {}).expect(200);
      for (const key of Object.keys(created)) {
        if (key !== 'updated_at') assert.deepEqual(res.body[key], created[key], key);
      }
    });
    it('reads a JSON number amount as its decimal text', async () => {
      const created = await createTransaction(t, s, { currency_code: 'USD', amount: '1' });
      const res = await t
        .http()
        .patch(txnPath(created.session_id))
        .set('Authorization', s.apiKey)
        .set('Content-Type', 'application/json')
        .send('{"amount": 10.50}')
        .expect(200);
      assert.equal(res.body.amount, '10.50');
    });
    it('refuses an attachment in a JSON body', async () => {
      const created = await createTransaction(t, s);
      assert.deepEqual(await refused(created.session_id, { attachment: 'file.pdf' }), {
        attachment: ['Attachments can only be sent as multipart/form-data.'],
      });
    });
  });
});
