import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startApp, TestApp } from '../setup/test-app';

/** The committed document at the repository root (this file runs as dist/test/openapi/*.js). */
const COMMITTED = resolve(__dirname, '..', '..', '..', 'openapi.json');

describe('OpenAPI document and Swagger UI', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('serves at /docs-json exactly the committed openapi.json', async () => {
    const res = await t.http().get('/docs-json').expect(200).expect('Content-Type', /json/);
    const committed = JSON.parse(readFileSync(COMMITTED, 'utf8')) as unknown;
    assert.deepStrictEqual(
      res.body,
      committed,
      'openapi.json is out of date with the code: run `npm run openapi:export` and commit openapi.json',
    );
  });

  it('documents both security schemes and marks public operations as taking no credentials', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    assert.deepEqual(doc.components.securitySchemes['api-key'], {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'Secret API key: `Authorization: Api-Key <prefix>.<secret>`',
    });
    assert.equal(doc.components.securitySchemes.basic.scheme, 'basic');
    const txn = doc.paths['/b/checkout/v1/pymt-txn'];
    assert.deepEqual(txn.post.security, [{ 'api-key': [] }, { basic: [] }]);
    assert.deepEqual(doc.paths['/b/checkout/v1/pymt-txn/{session_id}'].get.security, []);
    assert.deepEqual(doc.paths['/b/checkout/v1/pymt-txn/{session_id}'].patch.security, [{ 'api-key': [] }]);
  });

  it('carries the field limits of the create body', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    const create = doc.components.schemas.CreateTransactionDto;
    assert.deepEqual(create.required, ['type', 'amount', 'currency_code', 'pg_codes']);
    assert.deepEqual(create.properties.type.enum, ['payment_request', 'e_commerce']);
    assert.equal(create.properties.order_no.maxLength, 128);
    assert.equal(create.properties.customer_phone.maxLength, 12);
    assert.equal(create.properties.amount.pattern, '^\\d{1,13}(\\.\\d+)?$');
    assert.equal(create.properties.email_recipients.maxItems, 20);
  });

  it('serves the Swagger UI page at /docs, with and without a trailing slash', async () => {
    for (const path of ['/docs', '/docs/']) {
      const res = await t.http().get(path).expect(200).expect('Content-Type', /html/);
      assert.match(res.text, /<title>Checkout API<\/title>/);
      assert.match(res.text, /swagger-ui/);
    }
  });
});
