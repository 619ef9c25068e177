import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CurrenciesService } from '../../src/currencies/currencies.service';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/admin/currencies/';

describe('admin currencies: GET, POST currencies/ and DELETE currencies/{code}/', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const post = (body: unknown) =>
    t
      .http()
      .post(PATH)
      .set('Authorization', adminAuth())
      .send(body as object);
  const del = (code: string) => t.http().delete(`${PATH}${code}/`).set('Authorization', adminAuth());

  it('lists the configured currencies, sorted by code', async () => {
    const res = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.deepEqual(res.body, [
      { code: 'JPY', digits: 0 },
      { code: 'KWD', digits: 3 },
      { code: 'USD', digits: 2 },
    ]);
  });

  it('adds a currency with its ISO 4217 digits by default, any case stored upper-case', async () => {
    const res = await post({ code: 'bhd' }).expect(201);
    assert.deepEqual(res.body, { code: 'BHD', digits: 3 });
    assert.equal((await t.app.get(CurrenciesService).findByCode('BHD'))?.digits, 3);
  });

  it('takes explicit digits from 0 to 6 and refuses 7, negatives and non-integers', async () => {
    assert.deepEqual((await post({ code: 'EUR', digits: 0 }).expect(201)).body, { code: 'EUR', digits: 0 });
    assert.deepEqual((await post({ code: 'GBP', digits: 6 }).expect(201)).body, { code: 'GBP', digits: 6 });
    assert.deepEqual((await post({ code: 'SAR', digits: 7 }).expect(400)).body, {
      digits: ['Ensure this value is less than or equal to 6.'],
    });
    assert.deepEqual((await post({ code: 'SAR', digits: -1 }).expect(400)).body, {
      digits: ['Ensure this value is greater than or equal to 0.'],
    });
    assert.deepEqual((await post({ code: 'SAR', digits: 2.5 }).expect(400)).body, {
      digits: ['A valid integer is required.'],
    });
    assert.deepEqual((await post({ code: 'SAR', digits: null }).expect(400)).body, {
      digits: ['This field may not be null.'],
    });
  });

  it('needs digits for a code ISO 4217 does not know', async () => {
    const res = await post({ code: 'XYZ' }).expect(400);
    assert.deepEqual(res.body, {
      code: ['"XYZ" is not an ISO 4217 currency code; give "digits" explicitly.'],
    });
    assert.deepEqual((await post({ code: 'XYZ', digits: 2 }).expect(201)).body, { code: 'XYZ', digits: 2 });
  });

  it('refuses a duplicate with a 400 under code, whatever its case', async () => {
    const res = await post({ code: 'kwd' }).expect(400);
    assert.deepEqual(res.body, { code: ['Currency "KWD" already exists.'] });
  });

  it('refuses a code that is not 3 letters', async () => {
    assert.deepEqual((await post({ code: 'KWDD' }).expect(400)).body, {
      code: ['Ensure this field has no more than 3 characters.'],
    });
    for (const code of ['KW', 'K1D', '']) {
      const res = await post({ code }).expect(400);
      assert.deepEqual(res.body, { code: ['Enter a 3-letter ISO 4217 currency code.'] }, code);
    }
    assert.deepEqual((await post({}).expect(400)).body, { code: ['This field is required.'] });
    assert.deepEqual((await post({ code: 12 }).expect(400)).body, { code: ['Not a valid string.'] });
  });

  it('deletes an unused currency (any case) with 204; then it is gone', async () => {
    await post({ code: 'OMR' }).expect(201);
    const res = await del('omr').expect(204);
    assert.equal(res.text, '');
    assert.equal(await t.app.get(CurrenciesService).findByCode('OMR'), null);
  });

  it('answers 404 for an unknown currency', async () => {
    assert.deepEqual((await del('QQQ').expect(404)).body, { detail: 'Not found.' });
    await del('not-a-code').expect(404);
  });

  it('refuses with 409 to delete a currency a gateway still accepts', async () => {
    const res = await del('USD').expect(409);
    assert.deepEqual(res.body, {
      detail: 'Currency "USD" is still accepted by gateway(s) "sandbox"; remove it from them first.',
    });
    assert.ok(await t.app.get(CurrenciesService).findByCode('USD'));
  });

  it('refuses with 409 to delete a currency transactions are in, even once no gateway lists it', async () => {
    await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send(transactionBody({ currency_code: 'JPY', amount: '1500' }))
      .expect(201);
    await t
      .http()
      .patch('/b/checkout/v1/admin/gateways/sandbox/')
      .set('Authorization', adminAuth())
      .send({ currencies: ['KWD', 'USD'] })
      .expect(200);
    const res = await del('JPY').expect(409);
    assert.deepEqual(res.body, {
      detail: 'Currency "JPY" is used by existing transactions and cannot be deleted.',
    });
  });
});
