// test-legs: sqlite only — the OpenAPI document, its docs page and its client: the same on either database (docs/testing.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contractViolation } from '../setup/openapi-contract';

const SID = 'a'.repeat(40);
const json = (body: unknown) => Buffer.from(JSON.stringify(body));

/** The contract check every e2e response goes through (test/setup/openapi-contract.ts) can fail. */
describe('the OpenAPI contract check', () => {
  it('refuses a body its schema does not allow, naming the field', () => {
    const found = contractViolation(
      'GET',
      `/b/checkout/v1/pymt-txn/${SID}/`,
      404,
      'application/json',
      json({}),
    );
    assert.match(String(found), /→ 404: .*required property 'detail'/);
  });

  it('refuses a status the operation does not document, and a media type not listed under it', () => {
    assert.match(
      String(
        contractViolation('DELETE', '/b/checkout/v1/admin/currencies/KWD', 202, 'application/json', json({})),
      ),
      /status not documented for DELETE \/b\/checkout\/v1\/admin\/currencies\/\{code\}/,
    );
    assert.match(
      String(contractViolation('GET', '/health', 200, 'text/html', Buffer.from('<p>ok</p>'))),
      /text\/html, documented: application\/json/,
    );
  });

  it('checks formats and the error forms contract §2 allows', () => {
    assert.equal(
      contractViolation(
        'POST',
        '/b/checkout/v1/pymt-txn/',
        400,
        'application/json',
        json({ detail: 'JSON parse error' }),
      ),
      null,
      'the {detail} form of a 400',
    );
    assert.equal(
      contractViolation('POST', '/b/checkout/v1/pymt-txn', 400, 'application/json', json({ amount: ['x'] })),
      null,
    );
    const page = { results: [], next: 12 };
    assert.match(
      String(contractViolation('GET', '/b/checkout/v1/events?after=x', 200, 'application/json', json(page))),
      /next must be string/,
    );
  });

  it('leaves routes and methods outside the document alone (pages, /docs)', () => {
    assert.equal(contractViolation('GET', '/docs', 200, 'text/html', Buffer.from('<html>')), null);
    assert.equal(
      contractViolation('POST', '/b/checkout/v1/admin/pymt-txn', 404, 'application/json', json({})),
      null,
    );
  });

  it('matches paths as written, as tools do: each spelling is declared', () => {
    const missing = json({ detail: 'No such transaction.', result: 'failed' });
    for (const path of ['/b/pbl/v2/inquiry', '/b/pbl/v2/inquiry/']) {
      assert.equal(contractViolation('POST', path, 404, 'application/json', missing), null, path);
    }
    assert.match(
      String(contractViolation('POST', '/b/pbl/v2/inquiry/', 404, 'application/json', json({}))),
      /required property 'result'/,
      'the slash form is checked against its own (declared) operation',
    );
  });

  it('refuses an answer to a method the document lacks on a documented path', () => {
    assert.match(
      String(contractViolation('PUT', '/b/pbl/v2/inquiry/', 200, 'application/json', json({}))),
      /PUT is not documented for \/b\/pbl\/v2\/inquiry/,
    );
    assert.equal(
      contractViolation('PUT', '/b/pbl/v2/inquiry/', 404, 'application/json', json({ detail: 'Not found.' })),
      null,
      'a 404 says there is no such route',
    );
  });

  it('refuses an accepted request body whose media type the operation does not declare', () => {
    const page = json({ payment_methods: [] });
    const multipart = { method: 'POST', contentType: 'multipart/form-data; boundary=x' };
    assert.match(
      String(contractViolation(multipart, '/b/pbl/v2/payment-methods/', 200, 'application/json', page)),
      /a multipart\/form-data body was accepted, the document declares application\/json, application\/x-www-form-urlencoded/,
    );
    const form = { method: 'POST', contentType: 'application/x-www-form-urlencoded' };
    const created = contractViolation(
      form,
      '/b/checkout/v1/admin/currencies/',
      201,
      'application/json',
      json({ code: 'EUR', digits: 2 }),
    );
    assert.equal(created, null, 'a form on an admin route is declared');
  });
});
