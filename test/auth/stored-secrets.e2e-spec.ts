import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { adminAuth } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const ADMIN = '/b/checkout/v1/admin';

describe('secrets are stored only as hashes', () => {
  let t: TestApp;
  let db: DataSource;
  before(async () => {
    t = await startApp();
    db = t.app.get(DataSource);
  });
  after(() => t.close());

  const row = async (table: string, column: string, value: unknown): Promise<Record<string, unknown>> => {
    const rows: Array<Record<string, unknown>> = await db.query(
      `SELECT * FROM ${table} WHERE ${column} = ?`,
      [value],
    );
    assert.equal(rows.length, 1);
    return rows[0];
  };

  it('keeps user passwords as salted scrypt hashes, never in clear', async () => {
    const password = 'Plain-Text-Password-42';
    for (const username of ['hash-a', 'hash-b']) {
      await t
        .http()
        .post(`${ADMIN}/users/`)
        .set('Authorization', adminAuth())
        .send({ username, password })
        .expect(201);
    }
    const a = await row('users', 'username', 'hash-a');
    const b = await row('users', 'username', 'hash-b');
    assert.ok(!JSON.stringify(a).includes(password));
    assert.ok(!JSON.stringify(a).includes(Buffer.from(password).toString('base64')));
    assert.match(String(a.password_hash), /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    assert.notEqual(a.password_hash, b.password_hash, 'a salt makes equal passwords hash differently');
  });

  it('re-hashes a changed password', async () => {
    const created = await t
      .http()
      .post(`${ADMIN}/users/`)
      .set('Authorization', adminAuth())
      .send({ username: 'hash-c', password: 'first-password' })
      .expect(201);
    const before = await row('users', 'id', created.body.id);
    await t
      .http()
      .patch(`${ADMIN}/users/${created.body.id}/`)
      .set('Authorization', adminAuth())
      .send({ password: 'second-password' })
      .expect(200);
    const after = await row('users', 'id', created.body.id);
    assert.notEqual(after.password_hash, before.password_hash);
    assert.ok(!JSON.stringify(after).includes('second-password'));
  });

  it('keeps API keys as prefix + SHA-256 of the secret, never the secret', async () => {
    const res = await t
      .http()
      .post(`${ADMIN}/api-keys/`)
      .set('Authorization', adminAuth())
      .send({ name: 'hashed' })
      .expect(201);
    const [prefix, secret] = String(res.body.key).split('.');
    const stored = await row('api_keys', 'id', res.body.id);
    assert.equal(stored.prefix, prefix);
    assert.ok(!JSON.stringify(stored).includes(secret));
    assert.equal(stored.secret_hash, createHash('sha256').update(secret, 'utf8').digest('hex'));
  });
});
