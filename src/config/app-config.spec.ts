import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './app-config';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('loadConfig', () => {
  it('defaults to port 3000 on the embedded SQLite file under data/', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.publicBaseUrl, 'http://localhost:3000');
    assert.deepEqual(config.database, {
      type: 'sqlite',
      path: 'data/checkout.sqlite',
      pool: { acquireTimeoutMs: 5000, queryTimeoutMs: 10_000, size: 20 },
    });
    assert.equal(config.expirySweepSeconds, 30);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.webhookAllowPrivate, false);
  });

  it('accepts port 65535 and refuses 65536, naming the variable', () => {
    assert.equal(loadConfig({ PORT: '65535' }).port, 65535);
    assert.match(problemsOf({ PORT: '65536' }).join(), /^PORT="65536"/);
  });

  it('reads booleans explicitly: "false" is false, "maybe" is refused', () => {
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate, false);
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate, true);
    assert.match(problemsOf({ WEBHOOK_ALLOW_PRIVATE: 'maybe' }).join(), /^WEBHOOK_ALLOW_PRIVATE=/);
  });

  it('takes a mysql:// DATABASE_URL and refuses any other scheme', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'mysql://u:p@db:3306/checkout' }).database.type, 'mysql');
    assert.match(problemsOf({ DATABASE_URL: 'postgres://x' }).join(), /^DATABASE_URL=/);
    const shown = problemsOf({ DATABASE_URL: 'postgres://shop:s3cret@db/shop' }).join();
    assert.match(shown, /^DATABASE_URL="postgres:\/\/shop:\*\*\*@db\/shop"/, 'the password is masked');
    assert.doesNotMatch(shown, /s3cret/);
  });

  it('reads a DATABASE_URL host list with the pool settings (contract §17)', () => {
    const { database } = loadConfig({
      DATABASE_URL: 'mysql://app:s3cret@n1:4306,n2:4307/shop',
      DB_ACQUIRE_TIMEOUT_MS: '1500',
      DB_QUERY_TIMEOUT_MS: '4000',
      DB_POOL_SIZE: '8',
      DB_WSREP_SYNC_WAIT: '3',
    });
    assert.deepEqual(database, {
      type: 'mysql',
      endpoints: [
        { host: 'n1', port: 4306 },
        { host: 'n2', port: 4307 },
      ],
      user: 'app',
      password: 's3cret',
      database: 'shop',
      pool: { acquireTimeoutMs: 1500, queryTimeoutMs: 4000, size: 8 },
      wsrepSyncWait: 3,
    });
    assert.match(
      problemsOf({ DATABASE_URL: 'mysql://u@n1:4306,,n2/shop' }).join(),
      /^DATABASE_URL=.*several hosts/,
    );
    assert.match(problemsOf({ DB_ACQUIRE_TIMEOUT_MS: '50' }).join(), /^DB_ACQUIRE_TIMEOUT_MS=/);
    assert.match(problemsOf({ DB_QUERY_TIMEOUT_MS: '50' }).join(), /^DB_QUERY_TIMEOUT_MS=/);
    assert.match(problemsOf({ DB_QUERY_TIMEOUT_MS: 'soon' }).join(), /^DB_QUERY_TIMEOUT_MS=/);
    assert.match(problemsOf({ DB_POOL_SIZE: '0' }).join(), /^DB_POOL_SIZE=/);
    assert.match(problemsOf({ DB_WSREP_SYNC_WAIT: '16' }).join(), /^DB_WSREP_SYNC_WAIT=/);
  });

  it('needs ADMIN_USERNAME and ADMIN_PASSWORD together', () => {
    assert.deepEqual(problemsOf({ ADMIN_USERNAME: 'root' }), [
      'ADMIN_USERNAME and ADMIN_PASSWORD must be set together',
    ]);
    assert.deepEqual(problemsOf({ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: '12345678' }), []);
  });

  it('refuses a webhook signing key shorter than 16 characters', () => {
    assert.deepEqual(problemsOf({ WEBHOOK_SIGNING_KEY: 'k' }), [
      'WEBHOOK_SIGNING_KEY=*: WEBHOOK_SIGNING_KEY must be at least 16 characters',
    ]);
    assert.deepEqual(problemsOf({ WEBHOOK_SIGNING_KEY: 'k'.repeat(15) }).length, 1);
    assert.equal(loadConfig({ WEBHOOK_SIGNING_KEY: 'k'.repeat(16) }).webhookSigningKey, 'k'.repeat(16));
  });

  it('refuses a metrics token shorter than 16 characters and never shows it', () => {
    assert.deepEqual(problemsOf({ METRICS_TOKEN: 'short-token' }), [
      'METRICS_TOKEN=*: METRICS_TOKEN must be at least 16 characters',
    ]);
    assert.equal(loadConfig({}).metricsToken, null);
    assert.equal(loadConfig({ METRICS_TOKEN: 'm'.repeat(16) }).metricsToken, 'm'.repeat(16));
  });

  it('reads the admin console idle timeout in minutes, 1 to 1440 (default 30)', () => {
    assert.equal(loadConfig({}).adminSessionIdleMinutes, 30);
    assert.equal(loadConfig({ ADMIN_SESSION_IDLE_MINUTES: '5' }).adminSessionIdleMinutes, 5);
    assert.equal(problemsOf({ ADMIN_SESSION_IDLE_MINUTES: '0' }).length, 1);
    assert.equal(problemsOf({ ADMIN_SESSION_IDLE_MINUTES: '1441' }).length, 1);
  });

  it('accepts a sweep interval of 1 second and refuses 0', () => {
    assert.equal(loadConfig({ EXPIRY_SWEEP_SECONDS: '1' }).expirySweepSeconds, 1);
    assert.equal(problemsOf({ EXPIRY_SWEEP_SECONDS: '0' }).length, 1);
  });

  describe('in production (NODE_ENV=production), example secrets', () => {
    const EXAMPLE = {
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: 'change-me-admin-password',
      WEBHOOK_SIGNING_KEY: 'change-me-webhook-signing-key',
      CARD_FINGERPRINT_KEY: 'change-me-card-fingerprint-key-0123456789',
      METRICS_TOKEN: 'change-me-metrics-token',
      SECRETS_KEY: Buffer.from('change-me-change-me-change-me-32').toString('base64'),
      DATABASE_URL: 'mysql://checkout:change-me-db-password@mariadb:3306/checkout',
    };
    const OWN = {
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: 'a-long-admin-secret-7f3e',
      WEBHOOK_SIGNING_KEY: 'whsec-4d1b0f9c2a7e8d11',
      CARD_FINGERPRINT_KEY: 'cfk-0b9e4c2d7a1f6e3b8c5d2a9f0e7b4c1d',
      METRICS_TOKEN: 'metrics-5e2a9c1b7d3f',
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      DATABASE_URL: 'mysql://checkout:db-secret-91a2@mariadb:3306/checkout',
    };

    it('are refused, each named, never shown', () => {
      const problems = problemsOf({ ...EXAMPLE, NODE_ENV: 'production' });
      assert.deepEqual(
        problems.map((problem) => problem.split('=')[0]),
        [
          'ADMIN_PASSWORD',
          'WEBHOOK_SIGNING_KEY',
          'CARD_FINGERPRINT_KEY',
          'METRICS_TOKEN',
          'SECRETS_KEY',
          'DATABASE_URL',
        ],
      );
      for (const problem of problems) assert.match(problem, /^[A-Z_]+=\*: an example value/);
      const shown = problems.join('\n');
      for (const value of Object.values(EXAMPLE).slice(1)) assert.ok(!shown.includes(value), value);
      assert.ok(!shown.includes('change-me-db-password'));
    });

    it("one left among secrets of one's own is refused alone, whatever its case", () => {
      assert.deepEqual(
        problemsOf({ ...OWN, WEBHOOK_SIGNING_KEY: 'CHANGEME-signing-key-0001', NODE_ENV: 'production' }).map(
          (problem) => problem.split('=')[0],
        ),
        ['WEBHOOK_SIGNING_KEY'],
      );
    });

    it("are accepted outside production (trying it out), and secrets of one's own in production", () => {
      assert.equal(loadConfig(EXAMPLE).adminPassword, 'change-me-admin-password');
      assert.equal(
        loadConfig({ ...EXAMPLE, NODE_ENV: 'development' }).adminPassword,
        'change-me-admin-password',
      );
      assert.equal(loadConfig({ ...OWN, NODE_ENV: 'production' }).adminPassword, OWN.ADMIN_PASSWORD);
    });
  });
});
