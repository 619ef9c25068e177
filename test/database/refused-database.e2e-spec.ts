// test-bundle: quiet — it bounds how long the service and the scripts take to exit, from their start (docs/testing.md).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { MAIN_JS, waitUntil } from '../ops/service-process';
import { freePort, TEST_SECRETS_KEY } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';

/** The built scripts (this file runs as dist/test/database/*.js). */
const SCRIPTS = resolve(__dirname, '..', '..', 'scripts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a built entry point with exactly these variables (plus PATH); SIGKILLed after 30 s. */
function run(file: string, env: Record<string, string>, cwd: string): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [file], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      done({ code, ...out, ms: Date.now() - started });
    }),
  );
}

/**
 * A server that refuses the credentials or the database of DATABASE_URL is not one that is still
 * starting: `npm run admin:create`, `migration:run`, `secrets:rotate` and the service's own start
 * fail within seconds, saying so and naming DATABASE_URL without its password (contract §14: a
 * clear message and exit) — instead of "No database answers yet" for half a minute. A server that
 * does not answer at all is still waited for (containers starting together).
 */
if (testDbKind() === 'mysql') {
  const server = new URL(process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test');
  const hostPort = `${server.hostname}:${server.port || 3306}`;
  const password = `wrong-${randomBytes(6).toString('hex')}`;
  const user = `checkout_limited_${randomBytes(3).toString('hex')}`;
  const cases = [
    {
      what: 'a wrong password',
      url: `mysql://root:${password}@${hostPort}/test`,
      masked: `mysql://root:*****@${hostPort}/test`,
      cause: /Access denied for user 'root'/,
    },
    {
      what: 'an unknown database',
      url: `mysql://root@${hostPort}/checkout_nowhere_${randomBytes(3).toString('hex')}`,
      masked: `mysql://root@${hostPort}/checkout_nowhere_`,
      cause: /Unknown database/,
    },
    {
      what: 'a user without access to the database',
      url: `mysql://${user}:${password}@${hostPort}/test`,
      masked: `mysql://${user}:*****@${hostPort}/test`,
      cause: new RegExp(`Access denied for user '${user}'.* to database 'test'`),
    },
  ];

  describe('a database that refuses DATABASE_URL: the scripts and the start fail fast', () => {
    let cwd: string;
    before(async () => {
      cwd = mkdtempSync(join(tmpdir(), 'checkout-refused-'));
      const admin = await createConnection({ uri: server.toString() });
      await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
      await admin.end();
    });
    after(async () => {
      rmSync(cwd, { recursive: true, force: true });
      const admin = await createConnection({ uri: server.toString() });
      await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
      await admin.end();
    });

    // Every refusal for admin:create and the start; the other scripts open the database the same
    // way (openDataSource), one refusal each.
    const entryPoints = [
      { name: 'npm run admin:create', file: join(SCRIPTS, 'admin-create.js'), cases },
      { name: 'npm run migration:run', file: join(SCRIPTS, 'migrate.js'), cases: cases.slice(0, 1) },
      { name: 'npm run secrets:rotate', file: join(SCRIPTS, 'secrets-rotate.js'), cases: cases.slice(1, 2) },
      { name: 'the service start', file: MAIN_JS, cases },
    ];
    for (const entry of entryPoints) {
      for (const c of entry.cases) {
        it(`${entry.name} with ${c.what}: exit 1 within 10 s, naming DATABASE_URL without the password`, async () => {
          const result = await run(
            entry.file,
            {
              DATABASE_URL: c.url,
              SECRETS_KEY: TEST_SECRETS_KEY,
              SECRETS_KEY_PREVIOUS: Buffer.alloc(32, 9).toString('base64'),
              PORT: String(await freePort()),
            },
            cwd,
          );
          const output = `${result.stdout}\n${result.stderr}`;
          assert.equal(result.code, 1, output);
          assert.ok(result.ms < 10_000, `exited after ${result.ms} ms`);
          assert.match(result.stderr, /The database refused DATABASE_URL/);
          assert.ok(result.stderr.includes(c.masked), `names ${c.masked}:\n${result.stderr}`);
          assert.match(result.stderr, c.cause);
          assert.doesNotMatch(output, new RegExp(password), 'the password is never printed');
          assert.doesNotMatch(output, /No database answers yet|Retrying/);
          if (entry.file === MAIN_JS) assert.match(result.stderr, /Checkout failed to start/);
          else assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
        });
      }
    }

    it('a server that does not answer (yet) is still waited for by the start', async () => {
      const closed = await freePort(); // nothing listens there
      const child = spawn(process.execPath, [MAIN_JS], {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          LOG_LEVEL: 'warn',
          PORT: String(await freePort()),
          DATABASE_URL: `mysql://root@127.0.0.1:${closed}/test`,
          DB_ACQUIRE_TIMEOUT_MS: '500',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise((done) => child.on('close', done));
      try {
        await waitUntil(() => /No database answers yet/.test(output), 'a retry of the start', 8000);
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(child.exitCode, null, `still starting:\n${output}`);
        assert.doesNotMatch(output, /refused DATABASE_URL/);
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
    });
  });
}
