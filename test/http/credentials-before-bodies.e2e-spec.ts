import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { Transaction } from '../../src/transactions/transaction.entity';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, apiKeyAuth, basicAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { TXN_PATH } from '../transactions/helpers';

const MB = 1024 * 1024;
const GATEWAYS = '/b/checkout/v1/admin/gateways/';
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };

/**
 * Bodies a parser would refuse with 400 (or 413): a request that gets a 401 instead was answered
 * before its body was parsed. Each is about a megabyte.
 */
const UNPARSABLE: Record<string, { type: string; body: Buffer }> = {
  'malformed JSON': { type: 'application/json', body: Buffer.from(`{"type": "${'x'.repeat(MB - 100)}`) },
  'JSON nested 3000 levels deep': {
    type: 'application/json',
    body: Buffer.from(
      `{"extra": ${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}, "pad": "${'x'.repeat(MB - 30_000)}"}`,
    ),
  },
  'JSON over 1 MB': { type: 'application/json', body: Buffer.from(`{"pad": "${'x'.repeat(2 * MB)}"}`) },
  'a form that is not UTF-8': {
    type: 'application/x-www-form-urlencoded',
    body: Buffer.concat([
      Buffer.from(`type=e_commerce&pad=${'x'.repeat(MB - 100)}&vendor_name=caf`),
      Buffer.from([0xff]),
    ]),
  },
  'a form nested 40 levels deep': {
    type: 'application/x-www-form-urlencoded',
    body: Buffer.from(`pad=${'x'.repeat(MB - 1000)}&extra${'[a]'.repeat(40)}=1`),
  },
  'a malformed multipart body': {
    type: 'multipart/form-data; boundary=xyz',
    body: Buffer.from(
      `--xyz\r\nContent-Disposition: form-data; name="type"\r\n\r\n${'x'.repeat(MB - 200)}\r\n--nope`,
    ),
  },
};

/** contract §3 "credentials before bodies". */
describe('credentials before bodies', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    // Many deliberate failures from one address: not this file's subject (throttling is contract §3's).
    t = await startApp({ env: { AUTH_FAILURE_LIMIT: '1000' } });
    s = await seedBasics(t);
  });
  after(() => t.close());

  const send = async (path: string, auth: string | null, type: string, body: Buffer, method = 'POST') => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { 'Content-Type': type, ...(auth ? { Authorization: auth } : {}) },
      body,
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  const transactions = () => t.app.get(DataSource).getRepository(Transaction).count();

  it('answers 401 on create before parsing a body, without or with wrong credentials', async () => {
    const before = await transactions();
    for (const [what, { type, body }] of Object.entries(UNPARSABLE)) {
      const none = await send(TXN_PATH, null, type, body);
      assert.equal(none.status, 401, `${what}: ${JSON.stringify(none.body)}`);
      assert.deepEqual(none.body, NO_CREDENTIALS, what);
      assert.match(String(none.headers.get('www-authenticate')), /Api-Key/, what);
      const wrongKey = await send(TXN_PATH, apiKeyAuth(`abcdefgh.${'w'.repeat(40)}`), type, body);
      assert.equal(wrongKey.status, 401, `${what}: ${JSON.stringify(wrongKey.body)}`);
      assert.deepEqual(wrongKey.body, { detail: 'Invalid API key.' }, what);
      const wrongPassword = await send(TXN_PATH, basicAuth('merchant', 'wrong-password'), type, body);
      assert.equal(wrongPassword.status, 401, `${what}: ${JSON.stringify(wrongPassword.body)}`);
      assert.deepEqual(wrongPassword.body, { detail: 'Invalid username or password.' }, what);
    }
    assert.equal(await transactions(), before, 'nothing written');
  });

  it('answers 401 on update before parsing a body', async () => {
    for (const [what, { type, body }] of Object.entries(UNPARSABLE)) {
      const res = await send(`${TXN_PATH}${'0'.repeat(40)}/`, null, type, body, 'PATCH');
      assert.equal(res.status, 401, `${what}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, NO_CREDENTIALS, what);
    }
  });

  it('answers an admin route 401 without credentials and 403 to a non-admin, before parsing a body', async () => {
    const before = (await t.app.get(GatewaysService).list()).length;
    for (const [what, { type, body }] of Object.entries(UNPARSABLE)) {
      const none = await send(GATEWAYS, null, type, body);
      assert.equal(none.status, 401, `${what}: ${JSON.stringify(none.body)}`);
      assert.deepEqual(none.body, NO_CREDENTIALS, what);
      const wrong = await send(GATEWAYS, basicAuth('admin', 'not-the-password'), type, body);
      assert.equal(wrong.status, 401, `${what}: ${JSON.stringify(wrong.body)}`);
      // Valid credentials without the permission: refused by the admin guard, still before the body.
      const merchant = await send(GATEWAYS, s.merchant, type, body);
      assert.equal(merchant.status, 403, `${what}: ${JSON.stringify(merchant.body)}`);
    }
    assert.equal((await t.app.get(GatewaysService).list()).length, before, 'nothing written');
  });

  it('still parses the body once the credentials are valid: 400 / 413 as contract §1 says', async () => {
    const expected: Record<string, number> = {
      'malformed JSON': 400,
      'JSON nested 3000 levels deep': 400,
      'JSON over 1 MB': 413,
      'a form that is not UTF-8': 400,
      'a form nested 40 levels deep': 400,
      'a malformed multipart body': 400,
    };
    for (const [what, { type, body }] of Object.entries(UNPARSABLE)) {
      const res = await send(TXN_PATH, s.apiKey, type, body);
      assert.equal(res.status, expected[what], `${what}: ${JSON.stringify(res.body).slice(0, 300)}`);
      assert.deepEqual(Object.keys(res.body), ['detail'], what);
    }
    const admin = await send(GATEWAYS, adminAuth(), 'application/json', UNPARSABLE['malformed JSON'].body);
    assert.equal(admin.status, 400);
    assert.match(String(admin.body.detail), /^JSON parse error/);
  });

  it('keeps the connection usable after a 401 that left the body unread', async () => {
    const body = Buffer.from(JSON.stringify({ ...transactionBody(), pad: 'x'.repeat(MB - 200) }));
    for (let i = 0; i < 3; i++) {
      assert.equal((await send(TXN_PATH, null, 'application/json', body)).status, 401);
      assert.equal((await send(TXN_PATH, s.apiKey, 'application/json', body)).status, 201);
    }
  });
});
