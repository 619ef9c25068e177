// test-legs: sqlite only — the OpenAPI document, its docs page and its client: the same on either database (docs/testing.md).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startApp, TestApp } from '../setup/test-app';

/** The committed document at the repository root (this file runs as dist/test/openapi/*.js). */
interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

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

  it('documents every operation: id, summary, tag, a success answer and its error answers', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
    );
    assert.ok(operations.length >= 5);
    for (const { where, op } of operations) {
      assert.ok(op.operationId, `${where}: operationId`);
      assert.ok(op.summary, `${where}: summary`);
      assert.ok(op.tags?.length, `${where}: tags`);
      const codes = Object.keys(op.responses);
      assert.ok(
        codes.some((c) => /^[23]\d\d$/.test(c)),
        `${where}: a success response`,
      );
      if (op.security?.length) {
        assert.ok(codes.includes('401'), `${where}: 401 for missing or bad credentials`);
        assert.ok(codes.includes('429'), `${where}: 429 for throttled authentication`);
      }
      if (op.requestBody) assert.ok(codes.includes('400'), `${where}: 400 for a body that fails validation`);
    }
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
