import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminSessionsService } from '../../src/admin-console/admin-sessions.service';
import { transactionBody } from '../factories/transaction.factory';
import { dataSourceOf } from '../events/event-helpers';
import { consoleSignIn, sessionTokenOf } from '../admin/console-sign-in';
import { apiKeyAuth, basicAuth, Seeded, seedBasics } from '../setup/fixtures';
import { ADMIN, startApp, TestApp } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';

const CONFIG = '/b/checkout/v1/admin/config/';
const TXN = '/b/checkout/v1/pymt-txn/';
const INVALID_LOGIN = { detail: 'Invalid username or password.' };

/**
 * contract §3 "Names compare exactly": `admin ` (trailing space) signed in as `admin` on
 * MariaDB, whose PAD SPACE collations (utf8mb4_bin included) ignore trailing spaces; a database
 * created with the default case-insensitive collation also matched `ADMIN` and an upper-cased
 * key prefix.
 */
describe('usernames and API-key prefixes compare exactly', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp({ env: { AUTH_FAILURE_LIMIT: '1000' } });
    s = await seedBasics(t);
  });
  after(() => t.close());

  const basic = (username: string, password = ADMIN.password) =>
    t.http().get(CONFIG).set('Authorization', basicAuth(username, password));

  it('refuses `admin ` with the right password (Basic auth), as an unknown user', async () => {
    await basic(ADMIN.username).expect(200);
    for (const name of [`${ADMIN.username} `, `${ADMIN.username}  `, `${ADMIN.username}\t`]) {
      const res = await basic(name).expect(401);
      assert.deepEqual(res.body, INVALID_LOGIN, JSON.stringify(name));
    }
  });

  it('refuses `admin ` at the console sign-in, and opens no session', async () => {
    const res = await consoleSignIn(t, `${ADMIN.username} `, ADMIN.password).expect(401);
    assert.equal(sessionTokenOf(res), null);
    const outcome = await t.app
      .get(AdminSessionsService)
      .signIn(`${ADMIN.username} `, ADMIN.password, '127.0.0.1');
    assert.deepEqual(outcome, { ok: false, reason: 'invalid' });
  });

  it('refuses near names on a case-insensitive database too (MySQL leg)', async () => {
    if (testDbKind() === 'mysql') {
      // As a database created with MariaDB's default collation (utf8mb4_general_ci) has them.
      await dataSourceOf(t).query(
        'ALTER TABLE users MODIFY username VARCHAR(150) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL',
      );
      await dataSourceOf(t).query(
        'ALTER TABLE api_keys MODIFY prefix VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL',
      );
    }
    await basic(ADMIN.username).expect(200);
    await basic(ADMIN.username.toUpperCase()).expect(401);
    await basic(`${ADMIN.username.toUpperCase()} `).expect(401);
    const key = s.apiKey.slice('Api-Key '.length);
    const [prefix, secret] = key.split('.');
    await t.http().post(TXN).set('Authorization', s.apiKey).send(transactionBody()).expect(201);
    const upper = await t
      .http()
      .post(TXN)
      .set('Authorization', apiKeyAuth(`${prefix.toUpperCase()}.${secret}`))
      .send(transactionBody());
    assert.equal(upper.status, /[a-z]/.test(prefix) ? 401 : 201);
  });
});
