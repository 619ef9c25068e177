import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TXN_PATH, txnPath } from '../transactions/helpers';

const AS_FORM = {
  detail:
    'The body was sent as application/x-www-form-urlencoded (what curl -d sends by default) but it is JSON, so it was not read: send it with "Content-Type: application/json".',
};
const NO_TYPE = {
  detail:
    'The request has a body but no Content-Type, so it was not read: send "Content-Type: application/json" (or a form: application/x-www-form-urlencoded, multipart/form-data).',
};
const PRIVATE_URL = [
  'This URL points at a private or local address, which is not allowed unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (local development; set it and restart).',
];

/** A request with exactly these headers (no Content-Type unless given), as curl or a script sends it. */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.end(body);
  });
}

/**
 * Two traps of a first hour: a JSON body that was not read as JSON answers what went
 * wrong instead of "This field is required." for every field (contract §1, §2; docs/decisions.md),
 * and a private webhook_url names the setting that allows it (contract §4).
 */
describe('a body not read as JSON, and a private webhook_url', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  it('answers JSON sent as a form (curl -d without a Content-Type) with 400 saying so, on create and update', async () => {
    const created = await createTransaction(t, s);
    const json = JSON.stringify(transactionBody());
    for (const [method, path] of [
      ['POST', TXN_PATH],
      ['PATCH', txnPath(created.session_id)],
      ['PUT', txnPath(created.session_id).slice(0, -1)],
    ]) {
      for (const body of [json, `\n  ${json}`, '[{"amount": "1.000"}]']) {
        const res = await rawRequest(
          `${t.url}${path}`,
          method,
          { Authorization: s.apiKey, 'Content-Type': 'application/x-www-form-urlencoded' },
          body,
        );
        assert.equal(res.status, 400, `${method} ${path}`);
        assert.deepEqual(res.body, AS_FORM);
      }
    }
    // Nothing was changed by the refused updates.
    const read = await t.http().get(txnPath(created.session_id)).expect(200);
    assert.equal(read.body.amount, created.amount);
  });

  it('still reads a real form body (its keys percent-encoded or plain)', async () => {
    const res = await t
      .http()
      .post(TXN_PATH)
      .set('Authorization', s.apiKey)
      .type('form')
      .send('type=e_commerce&amount=10.000&currency_code=KWD&pg_codes=sandbox&extra=%7B%22a%22%3A1%7D');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.extra, { a: 1 });
  });

  it('answers a body with no Content-Type at all with 415 saying the header is missing', async () => {
    const created = await createTransaction(t, s);
    for (const [method, path] of [
      ['POST', TXN_PATH],
      ['PATCH', txnPath(created.session_id)],
    ]) {
      const res = await rawRequest(
        `${t.url}${path}`,
        method,
        { Authorization: s.apiKey },
        JSON.stringify(transactionBody()),
      );
      assert.equal(res.status, 415, `${method} ${path}`);
      assert.deepEqual(res.body, NO_TYPE);
    }
  });

  it('names WEBHOOK_ALLOW_PRIVATE when a webhook_url is private or local, on create and update', async () => {
    const refused = await t
      .http()
      .post(TXN_PATH)
      .set('Authorization', s.apiKey)
      .send(transactionBody({ webhook_url: 'http://127.0.0.1:9000/hook' }));
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { webhook_url: PRIVATE_URL });
    const created = await createTransaction(t, s);
    const update = await t
      .http()
      .patch(txnPath(created.session_id))
      .set('Authorization', s.apiKey)
      .send({ webhook_url: 'http://localhost:9000/hook' });
    assert.equal(update.status, 400);
    assert.deepEqual(update.body, { webhook_url: PRIVATE_URL });
  });
});
