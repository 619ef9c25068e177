// test-legs: sqlite only — the OpenAPI document, its docs page and its client: the same on either database (docs/testing.md).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCheckoutClient, type CheckoutClient } from '../../clients/typescript';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

/** This file runs as dist/test/openapi/*.js. */
const REPO = resolve(__dirname, '..', '..', '..');

/** The generated TypeScript client: typed by openapi.json, working against the service. */
describe('the TypeScript client (clients/typescript)', () => {
  let t: TestApp;
  let s: Seeded;
  let checkout: CheckoutClient;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    checkout = createCheckoutClient({ baseUrl: t.url, apiKey: s.apiKey.replace(/^Api-Key /, '') });
  });
  after(() => t.close());

  it('is generated from the committed openapi.json (npm run client:generate)', () => {
    const generated = execFileSync(
      process.execPath,
      [
        join(REPO, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
        join(REPO, 'openapi.json'),
        '--default-non-nullable',
        'false',
      ],
      { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const committed = readFileSync(join(REPO, 'clients', 'typescript', 'schema.d.ts'), 'utf8');
    assert.ok(
      generated === committed,
      'clients/typescript/schema.d.ts is out of date: run npm run client:generate',
    );
  });

  it('creates, retrieves and updates a transaction', async () => {
    const created = await checkout.POST('/b/checkout/v1/pymt-txn', {
      body: {
        type: 'e_commerce',
        amount: '86.000',
        currency_code: 'KWD',
        pg_codes: ['sandbox'],
        customer_email: 'client@example.com',
        order_no: 'CLIENT-1',
      },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const sessionId = created.data!.session_id;
    assert.equal(created.data!.amount, '86.000');

    const read = await checkout.GET('/b/checkout/v1/pymt-txn/{session_id}', {
      params: { path: { session_id: sessionId } },
    });
    assert.equal(read.response.status, 200);
    assert.equal(read.data!.order_no, 'CLIENT-1');
    assert.equal(read.data!.state, 'created');

    const updated = await checkout.PATCH('/b/checkout/v1/pymt-txn/{session_id}', {
      params: { path: { session_id: sessionId } },
      body: { amount: '90.5' },
    });
    assert.equal(updated.response.status, 200, JSON.stringify(updated.error));
    assert.equal(updated.data!.amount, '90.500');
    assert.equal(updated.data!.session_id, sessionId);
  });

  it('gives the typed error body of a refused request', async () => {
    const refused = await checkout.POST('/b/checkout/v1/pymt-txn', {
      body: { type: 'e_commerce', amount: '-1', currency_code: 'KWD', pg_codes: ['sandbox'] },
    });
    assert.equal(refused.response.status, 400);
    assert.deepEqual(refused.error, { amount: ['Ensure this value is greater than 0.'] });
  });
});
