import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { GatewaySettings } from '../../src/gateways/gateway-settings';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { keyId } from '../../src/gateways/secrets-cipher';
import { startService, type RunningService } from '../ops/service-process';
import { adminAuth, basicAuth } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { createTestDatabase, type TestDatabase } from '../setup/test-database';

const run = promisify(execFile);
const ROTATE_JS = resolve(__dirname, '..', '..', 'scripts', 'secrets-rotate.js');
const GATEWAYS = '/b/checkout/v1/admin/gateways/';
const KNET_PASSWORD = 'knet-pw-rotation-93c1';
const KNET_KEY = 'ROTATIONKEY0042x';

const newKey = (): string => randomBytes(32).toString('base64');
const knetGateway = {
  code: 'knet',
  name: 'KNET',
  pg: 'knet',
  type: 'production',
  currencies: ['KWD'],
  settings: { tranportal_id: '123456', tranportal_password: KNET_PASSWORD, resource_key: KNET_KEY },
};

async function seedKwd(t: TestApp): Promise<void> {
  await t
    .http()
    .post('/b/checkout/v1/admin/currencies/')
    .set('Authorization', adminAuth())
    .send({ code: 'KWD', digits: 3 })
    .expect(201);
}

async function storedSecrets(t: TestApp, code: string): Promise<Record<string, string>> {
  const rows = await t.app
    .get(DataSource)
    .query<{ secrets: string }[]>('SELECT secrets FROM gateways WHERE code = ?', [code]);
  return JSON.parse(rows[0].secrets) as Record<string, string>;
}

const keyIds = (secrets: Record<string, string>): string[] => [
  ...new Set(Object.values(secrets).map((v) => v.split('.')[1])),
];

/** Contract §20 "Secrets at rest": the key, the key file, the refusal without one, and rotation. */
describe('gateway secrets: keys and rotation', () => {
  it('without SECRETS_KEY: the embedded database gets a key file; MySQL refuses secrets with a 400 naming SECRETS_KEY', async () => {
    const t = await startApp({ env: { SECRETS_KEY: '' } });
    try {
      await seedKwd(t);
      // A gateway without secrets is fine either way.
      await t
        .http()
        .post(GATEWAYS)
        .set('Authorization', adminAuth())
        .send({ ...knetGateway, code: 'sb', pg: 'sandbox', settings: undefined })
        .expect(201);
      const res = await t.http().post(GATEWAYS).set('Authorization', adminAuth()).send(knetGateway);
      if (t.db.kind === 'mysql') {
        assert.equal(res.status, 400, res.text);
        const refusal = [
          'Secrets cannot be stored: SECRETS_KEY is not set on the service (see docs/operations.md).',
        ];
        assert.deepEqual(res.body, { settings: { tranportal_password: refusal, resource_key: refusal } });
        await t.http().get(`${GATEWAYS}knet/`).set('Authorization', adminAuth()).expect(404);
      } else {
        assert.equal(res.status, 201, res.text);
        const file = join(dirname(t.db.env.SQLITE_PATH), 'secrets.key');
        assert.ok(existsSync(file), 'the key file is created beside the database');
        const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
        assert.equal(key.length, 32);
        assert.deepEqual(keyIds(await storedSecrets(t, 'knet')), [keyId(key)]);
        const gateway = await t.app.get(GatewaysService).get('knet');
        assert.equal(t.app.get(GatewaySettings).of(gateway).resource_key, KNET_KEY);
      }
    } finally {
      await t.close();
    }
  });

  it('rotates: SECRETS_KEY_PREVIOUS reads old values until `secrets:rotate` encrypts them under the new key', async () => {
    const db: TestDatabase = await createTestDatabase();
    const [oldKey, newer] = [newKey(), newKey()];
    try {
      const first = await startApp({ db, env: { SECRETS_KEY: oldKey } });
      await seedKwd(first);
      await first.http().post(GATEWAYS).set('Authorization', adminAuth()).send(knetGateway).expect(201);
      assert.deepEqual(keyIds(await storedSecrets(first, 'knet')), [keyId(Buffer.from(oldKey, 'base64'))]);
      await first.close();

      // The new key alone cannot read the old values.
      const blind = await startApp({ db, env: { SECRETS_KEY: newer } });
      const stale = await blind.app.get(GatewaysService).get('knet');
      assert.throws(
        () => blind.app.get(GatewaySettings).of(stale),
        /neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS/,
      );
      await blind.close();

      // With the previous key, they are read and, after rotation, stored under the new one.
      const during = await startApp({ db, env: { SECRETS_KEY: newer, SECRETS_KEY_PREVIOUS: oldKey } });
      assert.equal(
        during.app.get(GatewaySettings).of(await during.app.get(GatewaysService).get('knet'))
          .tranportal_password,
        KNET_PASSWORD,
      );
      await during.close();

      const env = {
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'silent',
        ...db.env,
        SECRETS_KEY: newer,
        SECRETS_KEY_PREVIOUS: oldKey,
      };
      const rotated = await run(process.execPath, [ROTATE_JS], { env });
      assert.match(rotated.stdout, /2 value\(s\) of 1 gateway\(s\)/);
      assert.ok(!rotated.stdout.includes(KNET_PASSWORD) && !rotated.stderr.includes(KNET_PASSWORD));
      const again = await run(process.execPath, [ROTATE_JS], { env });
      assert.match(again.stdout, /0 value\(s\) of 0 gateway\(s\)/, 'a second run has nothing left to do');

      const after = await startApp({ db, env: { SECRETS_KEY: newer } });
      try {
        assert.deepEqual(keyIds(await storedSecrets(after, 'knet')), [keyId(Buffer.from(newer, 'base64'))]);
        const values = after.app.get(GatewaySettings).of(await after.app.get(GatewaysService).get('knet'));
        assert.equal(values.tranportal_password, KNET_PASSWORD);
        assert.equal(values.resource_key, KNET_KEY);
      } finally {
        await after.close();
      }

      // Without the previous key, the rotation says which key it cannot read.
      const lost = await run(process.execPath, [ROTATE_JS], {
        env: { ...env, SECRETS_KEY: newKey(), SECRETS_KEY_PREVIOUS: '' },
      }).catch((error: { code: number; stderr: string }) => error);
      assert.ok('code' in lost && lost.code === 1);
      assert.match(lost.stderr, new RegExp(`key ${keyId(Buffer.from(newer, 'base64'))}, which is neither`));
    } finally {
      await db.drop();
    }
  });

  it('refuses a SECRETS_KEY that is not 32 bytes in base64, without showing it', async () => {
    const { loadConfig } = await import('../../src/config/app-config');
    for (const bad of ['short', Buffer.alloc(31).toString('base64'), `${newKey()}x`]) {
      assert.throws(
        () => loadConfig({ SECRETS_KEY: bad }),
        (error: Error) =>
          error.message.includes('SECRETS_KEY=*: SECRETS_KEY must be 32 random bytes') &&
          !error.message.includes(bad),
      );
    }
    assert.throws(() => loadConfig({ SECRETS_KEY_PREVIOUS: 'nope' }), /SECRETS_KEY_PREVIOUS=\*/);
  });
});

/** Contract §20 "Secrets are write-only": nothing the running service writes shows a secret. */
describe('gateway secrets in the running service: answers, pages and logs', () => {
  let db: TestDatabase;
  let service: RunningService;
  const secret = 'sk_test_LOGGED-NEVER-7731';
  const webhookSecret = 'whsec_LOGGED-NEVER-5519';
  before(async () => {
    db = await createTestDatabase();
    service = await startService({
      ...db.env,
      LOG_LEVEL: 'debug',
      ADMIN_USERNAME: 'logadmin',
      ADMIN_PASSWORD: 'log-admin-Pa55word',
      SECRETS_KEY: newKey(),
    });
  });
  after(async () => {
    service?.kill();
    await service?.exited.catch(() => undefined);
    await db?.drop();
  });

  it('shows no secret in any answer, console page or log line', async () => {
    const auth = basicAuth('logadmin', 'log-admin-Pa55word');
    const call = async (method: string, path: string, body?: unknown): Promise<string> => {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: { Authorization: auth, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      assert.ok(res.status < 500, `${method} ${path}: ${res.status} ${text}`);
      return text;
    };
    const texts = [
      await call('POST', '/b/checkout/v1/admin/currencies/', { code: 'USD', digits: 2 }),
      await call('POST', GATEWAYS, {
        code: 'stripe',
        name: 'Stripe',
        pg: 'stripe',
        type: 'production',
        currencies: ['USD'],
        settings: { secret_key: secret, webhook_secret: webhookSecret },
      }),
      // A refused write does not echo the secret either.
      await call('PATCH', `${GATEWAYS}stripe/`, { settings: { secret_key: secret, colour: secret } }),
      await call('PATCH', `${GATEWAYS}stripe/`, { settings: { webhook_secret: webhookSecret } }),
      await call('GET', `${GATEWAYS}stripe/`),
      await call('GET', GATEWAYS),
    ];
    assert.match(texts[1], /"secrets_set":\["secret_key","webhook_secret"\]/);
    // The console's gateway pages, signed in through its form (double-submit login token).
    const token = 'ab'.repeat(32);
    const signedIn = await fetch(`${service.url}/admin/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Cookie: `checkout_admin_login=${token}`,
      },
      body: new URLSearchParams({ username: 'logadmin', password: 'log-admin-Pa55word', csrf_token: token }),
    });
    const session = /checkout_admin=[^;]+/.exec(signedIn.headers.getSetCookie().join('\n'))?.[0];
    assert.ok(session, `signed in (${signedIn.status})`);
    for (const page of ['/admin/gateways', '/admin/gateways/stripe']) {
      const res = await fetch(`${service.url}${page}`, { headers: { Cookie: session } });
      const html = await res.text();
      assert.equal(res.status, 200, page);
      texts.push(html);
    }
    assert.match(texts.at(-1)!, /secret_key/, 'the edit page names the secret setting');
    await new Promise((r) => setTimeout(r, 300)); // the last access lines
    for (const value of [secret, webhookSecret]) {
      for (const text of texts) assert.ok(!text.includes(value), `an answer shows ${value}`);
      assert.ok(!service.output.stdout.includes(value), `the log shows ${value}`);
      assert.ok(!service.output.stderr.includes(value), `stderr shows ${value}`);
    }
  });

  it('reports at start a missing SECRETS_KEY: MySQL cannot store secrets, SQLite creates a key file', async () => {
    const second = await startService({ ...db.env, LOG_LEVEL: 'info' });
    try {
      if (db.kind === 'mysql') {
        assert.match(second.output.stdout, /SECRETS_KEY is not set: gateways whose driver needs secrets/);
      } else {
        const file = join(dirname(db.env.SQLITE_PATH), 'secrets.key');
        assert.match(second.output.stdout, /SECRETS_KEY is not set: created a key for gateway secrets in/);
        assert.ok(existsSync(file));
      }
    } finally {
      second.kill();
      await second.exited.catch(() => undefined);
    }
  });
});
