import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UsersService } from '../../src/auth/users/users.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/admin/gateways/';

describe('admin gateways: GET, POST gateways/ and GET, PATCH, DELETE gateways/{code}/', () => {
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
  const patch = (code: string, body: unknown) =>
    t
      .http()
      .patch(`${PATH}${code}/`)
      .set('Authorization', adminAuth())
      .send(body as object);
  const get = (code: string) => t.http().get(`${PATH}${code}/`).set('Authorization', adminAuth());
  const del = (code: string) => t.http().delete(`${PATH}${code}/`).set('Authorization', adminAuth());
  const minimal = (overrides: Record<string, unknown> = {}) => ({
    code: 'knet',
    name: 'KNET',
    pg: 'sandbox',
    type: 'production',
    currencies: ['KWD'],
    ...overrides,
  });

  it('creates a gateway with the defaults for what is left out', async () => {
    const res = await post(minimal({ code: 'gw-defaults', currencies: ['kwd', 'USD', 'KWD'] })).expect(201);
    const { created_at, updated_at, ...rest } = res.body;
    assert.match(created_at, /^\d{4}-\d{2}-\d{2}T.*Z$/);
    assert.match(updated_at, /^\d{4}-\d{2}-\d{2}T.*Z$/);
    assert.deepEqual(rest, {
      code: 'gw-defaults',
      name: 'KNET',
      pg: 'sandbox',
      type: 'production',
      operation: 'purchase',
      currencies: ['KWD', 'USD'],
      fee_fixed: '0',
      fee_percent: '0',
      icon: '',
      flow: 'redirect',
      require_customer_phone: false,
      is_active: true,
      tokenizable: false,
      instructions: '',
      settings: {},
      secrets_set: [],
      secrets_unreadable: [],
    });
    assert.deepEqual((await get('gw-defaults').expect(200)).body, res.body);
  });

  it('makes a sandbox gateway tokenizable unless told otherwise; the flag can be changed; non-booleans refused', async () => {
    const sandbox = await post(minimal({ code: 'gw-tok', type: 'sandbox' })).expect(201);
    assert.equal(sandbox.body.tokenizable, true);
    const off = await post(minimal({ code: 'gw-tok-off', type: 'sandbox', tokenizable: false })).expect(201);
    assert.equal(off.body.tokenizable, false);
    const on = await post(minimal({ code: 'gw-prod-tok', type: 'production', tokenizable: true })).expect(
      201,
    );
    assert.equal(on.body.tokenizable, true);
    const patched = await t
      .http()
      .patch(`${PATH}gw-tok/`)
      .set('Authorization', adminAuth())
      .send({ tokenizable: false })
      .expect(200);
    assert.equal(patched.body.tokenizable, false);
    assert.equal((await t.app.get(GatewaysService).get('gw-tok')).tokenizable, false);
    for (const bad of ['maybe', null, 3]) {
      const res = await post(minimal({ code: 'gw-tok-bad', tokenizable: bad })).expect(400);
      assert.deepEqual(Object.keys(res.body as object), ['tokenizable'], String(bad));
    }
  });

  it('creates a gateway with every field given; fees as decimal strings, JSON numbers read as their text', async () => {
    const res = await t
      .http()
      .post(PATH)
      .set('Authorization', adminAuth())
      .set('Content-Type', 'application/json')
      .send(
        JSON.stringify({
          code: 'gw_full-1',
          name: 'Full',
          pg: 'sandbox',
          type: 'sandbox',
          operation: 'authorize',
          currencies: ['USD'],
          icon: 'https://cdn.example.com/icon.svg',
          flow: 'redirect',
          require_customer_phone: true,
          is_active: false,
        }).replace('}', ',"fee_fixed":0.100,"fee_percent":2.50}'),
      )
      .expect(201);
    assert.equal(res.body.fee_fixed, '0.1');
    assert.equal(res.body.fee_percent, '2.5');
    assert.equal(res.body.operation, 'authorize');
    assert.equal(res.body.icon, 'https://cdn.example.com/icon.svg');
    assert.equal(res.body.require_customer_phone, true);
    assert.equal(res.body.is_active, false);
    const stored = await t.app.get(GatewaysService).get('gw_full-1');
    assert.equal(stored.requireCustomerPhone, true);
  });

  it('lists the gateways', async () => {
    const res = await t.http().get(PATH).set('Authorization', adminAuth()).expect(200);
    assert.ok(Array.isArray(res.body));
    assert.equal(res.body[0].code, 'sandbox');
    assert.equal(res.body[0].fee_fixed, '0');
  });

  it('refuses a duplicate code with a 400 under code', async () => {
    const res = await post(minimal({ code: 'sandbox' })).expect(400);
    assert.deepEqual(res.body, { code: ['Gateway "sandbox" already exists.'] });
  });

  it('takes a code of 64 characters from [a-z0-9_-] and refuses 65, upper case and other characters', async () => {
    const code64 = 'a'.repeat(64);
    await post(minimal({ code: code64 })).expect(201);
    assert.deepEqual((await post(minimal({ code: 'a'.repeat(65) })).expect(400)).body, {
      code: ['Ensure this field has no more than 64 characters.'],
    });
    const message = 'Enter a valid code: 1-64 characters among lowercase letters, digits, "_" and "-".';
    for (const code of ['KNET', 'knet.1', 'kn et', '']) {
      assert.deepEqual((await post(minimal({ code })).expect(400)).body, { code: [message] }, code);
    }
  });

  it('reports every missing required field at once', async () => {
    const res = await post({}).expect(400);
    assert.deepEqual(res.body, {
      code: ['This field is required.'],
      name: ['This field is required.'],
      pg: ['This field is required.'],
      type: ['This field is required.'],
      currencies: ['This field is required.'],
    });
  });

  it('takes a name of 128 characters and refuses 129 or blank', async () => {
    await post(minimal({ code: 'name-128', name: 'n'.repeat(128) })).expect(201);
    assert.deepEqual((await post(minimal({ code: 'name-129', name: 'n'.repeat(129) })).expect(400)).body, {
      name: ['Ensure this field has no more than 128 characters.'],
    });
    assert.deepEqual((await post(minimal({ code: 'name-0', name: '' })).expect(400)).body, {
      name: ['This field may not be blank.'],
    });
  });

  it('refuses choices outside type, operation and flow', async () => {
    const res = await post(
      minimal({ code: 'bad-choices', type: 'live', operation: 'sale', flow: 'iframe' }),
    ).expect(400);
    assert.deepEqual(res.body, {
      type: ['"live" is not a valid choice.'],
      operation: ['"sale" is not a valid choice.'],
      flow: ['"iframe" is not a valid choice.'],
    });
  });

  it('refuses a pg that is not a lowercase identifier', async () => {
    const res = await post(minimal({ code: 'bad-pg', pg: 'Sand Box' })).expect(400);
    assert.deepEqual(res.body, {
      pg: [
        'Enter a valid payment gateway name: 1-64 characters among lowercase letters, digits, "_" and "-".',
      ],
    });
  });

  it('refuses a pg that names no driver (contract §20)', async () => {
    const res = await post(minimal({ code: 'bad-driver', pg: 'mybank' })).expect(400);
    assert.deepEqual(res.body, {
      pg: [
        '"mybank" is not a gateway driver; use one of "sandbox", "cash", "mpgs", "knet", "stripe", "router".',
      ],
    });
    await get('bad-driver').expect(404);
  });

  it('refuses currencies that are not configured, and a currencies value that is not a list of codes', async () => {
    assert.deepEqual(
      (await post(minimal({ code: 'bad-cur', currencies: ['KWD', 'EUR', 'GBP'] })).expect(400)).body,
      {
        currencies: ['"EUR" is not a configured currency.', '"GBP" is not a configured currency.'],
      },
    );
    assert.deepEqual((await post(minimal({ code: 'bad-cur', currencies: 'KWD' })).expect(400)).body, {
      currencies: ['Expected a list of items but got type "str".'],
    });
    assert.deepEqual((await post(minimal({ code: 'bad-cur', currencies: ['KWDX'] })).expect(400)).body, {
      currencies: ['Enter a 3-letter ISO 4217 currency code.'],
    });
  });

  it('takes non-negative fees up to 13 integer digits and 6 decimals, and a percent up to 100', async () => {
    const ok = await post(
      minimal({ code: 'fees-max', fee_fixed: '9999999999999.999999', fee_percent: '100' }),
    ).expect(201);
    assert.equal(ok.body.fee_fixed, '9999999999999.999999');
    assert.equal(ok.body.fee_percent, '100');
    const res = await post(
      minimal({ code: 'fees-bad', fee_fixed: '10000000000000', fee_percent: '100.000001' }),
    ).expect(400);
    assert.deepEqual(res.body, {
      fee_fixed: ['Ensure that there are no more than 13 digits before the decimal point.'],
      fee_percent: ['Ensure this value is less than or equal to 100.'],
    });
    assert.deepEqual((await post(minimal({ code: 'fees-bad', fee_fixed: '0.1234567' })).expect(400)).body, {
      fee_fixed: ['Ensure that there are no more than 6 decimal places.'],
    });
    assert.deepEqual((await post(minimal({ code: 'fees-bad', fee_fixed: '-1' })).expect(400)).body, {
      fee_fixed: ['Ensure this value is greater than or equal to 0.'],
    });
    assert.deepEqual((await post(minimal({ code: 'fees-bad', fee_percent: 'ten' })).expect(400)).body, {
      fee_percent: ['A valid number is required.'],
    });
    assert.equal(
      (await post(minimal({ code: 'fees-zeros', fee_fixed: '1.5000000' })).expect(201)).body.fee_fixed,
      '1.5',
    );
  });

  it('takes an icon URL of 200 characters or "" and refuses 201 or a non-URL', async () => {
    const icon200 = `https://cdn.example.com/${'i'.repeat(200 - 'https://cdn.example.com/'.length)}`;
    await post(minimal({ code: 'icon-200', icon: icon200 })).expect(201);
    await post(minimal({ code: 'icon-empty', icon: '' })).expect(201);
    assert.deepEqual((await post(minimal({ code: 'icon-201', icon: `${icon200}x` })).expect(400)).body, {
      icon: ['Ensure this field has no more than 200 characters.'],
    });
    assert.deepEqual((await post(minimal({ code: 'icon-bad', icon: 'icon.svg' })).expect(400)).body, {
      icon: ['Enter a valid URL.'],
    });
  });

  it('refuses null for fields that cannot be empty', async () => {
    const res = await post(minimal({ code: 'nulls', operation: null, is_active: null, icon: null })).expect(
      400,
    );
    assert.deepEqual(res.body, {
      operation: ['This field may not be null.'],
      icon: ['This field may not be null.'],
      is_active: ['This field may not be null.'],
    });
  });

  it('changes only the fields sent on PATCH', async () => {
    await post(minimal({ code: 'patch-me', fee_percent: '1' })).expect(201);
    const res = await patch('patch-me', {
      name: 'Renamed',
      currencies: ['usd'],
      fee_fixed: '0.250',
      require_customer_phone: true,
    }).expect(200);
    assert.equal(res.body.name, 'Renamed');
    assert.deepEqual(res.body.currencies, ['USD']);
    assert.equal(res.body.fee_fixed, '0.25');
    assert.equal(res.body.fee_percent, '1');
    assert.equal(res.body.require_customer_phone, true);
    assert.equal(res.body.type, 'production');
    assert.deepEqual((await get('patch-me').expect(200)).body, res.body);
  });

  it('applies the create rules on PATCH and writes nothing when rejected', async () => {
    await post(minimal({ code: 'patch-rules' })).expect(201);
    const res = await patch('patch-rules', {
      name: 'n'.repeat(129),
      currencies: ['EUR'],
      is_active: null,
    }).expect(400);
    assert.deepEqual(res.body, {
      name: ['Ensure this field has no more than 128 characters.'],
      is_active: ['This field may not be null.'],
    });
    assert.deepEqual((await patch('patch-rules', { currencies: ['EUR'] }).expect(400)).body, {
      currencies: ['"EUR" is not a configured currency.'],
    });
    assert.equal((await get('patch-rules').expect(200)).body.name, 'KNET');
  });

  it('keeps the code immutable: the same code is accepted, another one refused', async () => {
    await post(minimal({ code: 'fixed-code' })).expect(201);
    await patch('fixed-code', { code: 'fixed-code', name: 'Same code' }).expect(200);
    const res = await patch('fixed-code', { code: 'new-code' }).expect(400);
    assert.deepEqual(res.body, { code: ['The gateway code cannot be changed.'] });
    await get('new-code').expect(404);
  });

  it('answers 404 for an unknown gateway on GET, PATCH and DELETE', async () => {
    for (const res of [await get('nope'), await patch('nope', { name: 'x' }), await del('nope')]) {
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: 'Not found.' });
    }
  });

  it('deletes a gateway no transaction used, and takes its code away from the users holding it', async () => {
    await post(minimal({ code: 'unused' })).expect(201);
    const holder = await t.app
      .get(UsersService)
      .create({ username: 'holder', password: 'holder-pass', gatewayCodes: ['sandbox', 'unused'] });
    const res = await del('unused').expect(200);
    assert.deepEqual(res.body, {
      code: 'unused',
      result: 'deleted',
      detail: 'Gateway "unused" was deleted.',
    });
    await get('unused').expect(404);
    assert.deepEqual((await t.app.get(UsersService).get(holder.id)).gatewayCodes, ['sandbox']);
    await post(minimal({ code: 'unused' })).expect(201);
    assert.deepEqual((await t.app.get(UsersService).get(holder.id)).gatewayCodes, ['sandbox']);
  });

  it('deactivates, not deletes, a gateway that transactions used; new transactions cannot use it', async () => {
    await post(minimal({ code: 'used', type: 'sandbox' })).expect(201);
    const tx = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send(transactionBody({ pg_codes: ['used'] }))
      .expect(201);
    const res = await del('used').expect(200);
    assert.deepEqual(res.body, {
      code: 'used',
      result: 'deactivated',
      detail: 'Gateway "used" is used by transactions: it was deactivated instead of deleted.',
    });
    assert.equal((await get('used').expect(200)).body.is_active, false);
    const retrieved = await t.http().get(`/b/checkout/v1/pymt-txn/${tx.body.session_id}/`).expect(200);
    assert.equal(retrieved.body.payment_methods[0].code, 'used');
    const refused = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send(transactionBody({ pg_codes: ['used'] }))
      .expect(400);
    assert.deepEqual(refused.body, { pg_codes: ['"used" is not a valid gateway code.'] });
  });
});
