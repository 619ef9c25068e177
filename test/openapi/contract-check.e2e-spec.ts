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
});
