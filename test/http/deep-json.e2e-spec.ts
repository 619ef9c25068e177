import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys/api-keys.service';
import { UsersService } from '../../src/auth/users/users.service';
import { CurrenciesService } from '../../src/currencies/currencies.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { Transaction } from '../../src/transactions/transaction.entity';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TXN_PATH, txnPath } from '../transactions/helpers';

const TOO_DEEP = /nested deeper than 32 levels/;

/** `{"a":{"a":…{}}}`: `levels` levels of objects. */
const nestedObjects = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

/** `base` with `key` holding objects nested so that the whole body is `levels` levels deep. */
function bodyOfDepth(levels: number, base: Record<string, unknown>, key: string): string {
  const rest = JSON.stringify(base).slice(1, -1);
  return `{${rest}${rest ? ', ' : ''}"${key}": ${nestedObjects(levels - 1)}}`;
}

/** contract §17: JSON nested deeper than 32 levels → 400, never a 5xx. */
describe('deeply nested bodies', () => {
  let t: TestApp;
  let s: Seeded;
  let sessionId: string;
  let userId: number;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    sessionId = (await createTransaction(t, s)).session_id as string;
    userId = s.merchantId;
  });
  after(() => t.close());

  /** Every validated JSON route: method, path, credentials, a body to nest into, and the key. */
  const routes = (): [string, string, string, Record<string, unknown>, string][] => [
    ['POST', TXN_PATH, s.apiKey, transactionBody(), 'extra'],
    ['PATCH', txnPath(sessionId), s.apiKey, {}, 'extra'],
    ['POST', '/b/pbl/v2/card/', s.apiKey, { type: 'sandbox' }, 'customer_id'],
    ['POST', '/b/pbl/v2/inquiry/', s.apiKey, {}, 'session_id'],
    ['POST', '/b/pbl/v2/payment/cash/', s.apiKey, {}, 'session_id'],
    ['POST', '/b/pbl/v2/auto-debit/', s.apiKey, { token: 'x' }, 'session_id'],
    ['POST', '/b/pbl/v2/operation/', s.apiKey, { operation: 'refund' }, 'session_id'],
    ['POST', '/b/pbl/v2/payment-methods/', s.apiKey, { plugin: 'payment_request' }, 'currencies'],
    ['POST', `/b/checkout/v1/test-helpers/pymt-txn/${sessionId}/pay/`, s.apiKey, {}, 'card'],
    ['POST', '/b/checkout/v1/admin/gateways/', adminAuth(), { code: 'deep', pg: 'sandbox' }, 'currencies'],
    ['PATCH', '/b/checkout/v1/admin/gateways/sandbox/', adminAuth(), {}, 'currencies'],
    [
      'POST',
      '/b/checkout/v1/admin/users/',
      adminAuth(),
      { username: 'deep', password: 'deep-pass-1' },
      'gateway_codes',
    ],
    ['PATCH', `/b/checkout/v1/admin/users/${userId}/`, adminAuth(), {}, 'gateway_codes'],
    ['POST', '/b/checkout/v1/admin/currencies/', adminAuth(), {}, 'code'],
    ['POST', '/b/checkout/v1/admin/api-keys/', adminAuth(), {}, 'name'],
    ['PATCH', '/b/checkout/v1/admin/config/', adminAuth(), {}, 'merchant_name'],
  ];

  const send = (method: string, path: string, auth: string, text: string) => {
    const req = method === 'POST' ? t.http().post(path) : t.http().patch(path);
    return req.set('Authorization', auth).set('Content-Type', 'application/json').send(text);
  };

  /** What a refused request could have changed. */
  const snapshot = async () => ({
    transactions: await t.app.get(DataSource).getRepository(Transaction).count(),
    transaction: (await t.http().get(txnPath(sessionId)).expect(200)).body as unknown,
    gateways: await t.app.get(GatewaysService).list(),
    users: (await t.app.get(UsersService).list()).map((u) => ({ ...u })),
    currencies: await t.app.get(CurrenciesService).list(),
    apiKeys: (await t.app.get(ApiKeysService).list()).length,
  });

  it('refuses 33 and 3000 levels on every validated JSON route with 400, writing nothing', async () => {
    const before = await snapshot();
    for (const [method, path, auth, base, key] of routes()) {
      for (const levels of [33, 3000]) {
        const res = await send(method, path, auth, bodyOfDepth(levels, base, key));
        const what = `${method} ${path} (${levels} levels)`;
        assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`);
        assert.match(String(res.body.detail), TOO_DEEP, what);
        assert.match(String(res.body.detail), /^JSON parse error - /, what);
      }
    }
    assert.deepEqual(await snapshot(), before);
  });

  it('refuses arrays nested too deep too, and a megabyte of brackets that would exhaust a recursive parser', async () => {
    for (const text of [
      `{"extra": {"list": ${'['.repeat(32)}${']'.repeat(32)}}}`,
      `[${'['.repeat(40)}${']'.repeat(40)}]`,
      '['.repeat(1024 * 1024 - 1),
      `{"extra": ${'{"a":['.repeat(100_000)}`,
    ]) {
      const res = await send('POST', TXN_PATH, s.apiKey, text);
      assert.equal(res.status, 400, text.slice(0, 40));
      assert.deepEqual(res.body, {
        detail: 'JSON parse error - the document is nested deeper than 32 levels.',
      });
    }
  });

  it('accepts exactly 32 levels where the schema allows nesting (extra), and keeps them', async () => {
    const text = bodyOfDepth(32, transactionBody(), 'extra');
    const created = await send('POST', TXN_PATH, s.apiKey, text);
    assert.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
    assert.deepEqual(created.body.extra, JSON.parse(nestedObjects(31)));
    const updated = await send(
      'PATCH',
      txnPath(created.body.session_id as string),
      s.apiKey,
      bodyOfDepth(32, {}, 'extra'),
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.body).slice(0, 300));
    assert.deepEqual(updated.body.extra, JSON.parse(nestedObjects(31)));
  });

  describe('form bodies', () => {
    const form = (fields: Record<string, string>) =>
      t.http().post(TXN_PATH).set('Authorization', s.apiKey).type('form').send(fields);
    const multipart = (fields: Record<string, string>) => {
      const req = t.http().post(TXN_PATH).set('Authorization', s.apiKey);
      for (const [name, value] of Object.entries(fields)) void req.field(name, value);
      return req;
    };
    const fields = { ...transactionBody(), pg_codes: 'sandbox' } as Record<string, string>;

    for (const [kind, post] of [
      ['urlencoded', form],
      ['multipart', multipart],
    ] as const) {
      it(`${kind}: a dict sent as a JSON string counts its levels in the body's 32`, async () => {
        const before = await t.app.get(DataSource).getRepository(Transaction).count();
        for (const levels of [32, 3000]) {
          const res = await post({ ...fields, extra: nestedObjects(levels) });
          assert.equal(res.status, 400, `${levels}: ${JSON.stringify(res.body).slice(0, 300)}`);
          assert.deepEqual(Object.keys(res.body as object), ['extra']);
          assert.match(String(res.body.extra[0]), TOO_DEEP);
        }
        const listRes = await post({ ...fields, pg_codes: `[${'['.repeat(40)}${']'.repeat(40)}]` });
        assert.equal(listRes.status, 400);
        assert.match(String(listRes.body.pg_codes[0]), TOO_DEEP);
        assert.equal(
          await t.app.get(DataSource).getRepository(Transaction).count(),
          before,
          'nothing written',
        );
        const ok = await post({ ...fields, extra: nestedObjects(31) });
        assert.equal(ok.status, 201, JSON.stringify(ok.body).slice(0, 300));
        assert.deepEqual(ok.body.extra, JSON.parse(nestedObjects(31)));
      });

      it(`${kind}: field names nesting like a[b][c] are held to 32 levels`, async () => {
        const within = await post({ ...fields, [`x${'[a]'.repeat(31)}`]: '1' });
        assert.equal(within.status, 201, JSON.stringify(within.body).slice(0, 300));
        const deeper = await post({ ...fields, [`x${'[a]'.repeat(32)}`]: '1' });
        assert.equal(deeper.status, 400, JSON.stringify(deeper.body).slice(0, 300));
        assert.match(String(deeper.body.detail), TOO_DEEP);
      });
    }
  });
});
