import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { createTestDatabase, TestDatabase } from '../setup/test-database';
import { jsonLines, RunningService, startService } from './service-process';

/** `npm run admin:create` as built (this file runs as dist/test/ops/*.js). */
const ADMIN_CREATE_JS = resolve(__dirname, '..', '..', 'scripts', 'admin-create.js');

interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function adminCreate(env: Record<string, string>, cwd: string): Promise<ScriptResult> {
  const child = spawn(process.execPath, [ADMIN_CREATE_JS], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, ...out })));
}

/** The status of an admin API request with these Basic credentials. */
async function adminStatus(service: RunningService, username: string, password: string): Promise<number> {
  const response = await fetch(`${service.url}/b/checkout/v1/admin/config/`, {
    headers: { Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
  });
  return response.status;
}

const stop = async (service: RunningService | undefined): Promise<void> => {
  service?.kill();
  await service?.exited.catch(() => undefined);
};

describe('the first admin: a first start on an empty database, and npm run admin:create', () => {
  let db: TestDatabase;
  let cwd: string;
  let service: RunningService | undefined;
  beforeEach(async () => {
    db = await createTestDatabase();
    cwd = mkdtempSync(join(tmpdir(), 'checkout-first-admin-'));
  });
  afterEach(async () => {
    await stop(service);
    service = undefined;
    await db.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a first start without ADMIN_USERNAME says how to get an admin: the banner on SQLite, a warning naming admin:create on MySQL', async () => {
    service = await startService({ ...db.env });
    const warnings = jsonLines(service.output.stdout).filter(
      (line) => typeof line.msg === 'string' && line.msg.includes('npm run admin:create'),
    );
    if (db.kind === 'sqlite') {
      const banner = service.output.stdout;
      const password = /^ {2}export CHECKOUT_ADMIN_PASSWORD='([^']+)'$/m.exec(banner)?.[1];
      assert.ok(password, `the banner carries the admin password export:\n${banner}`);
      assert.match(banner, /^ {2}export CHECKOUT_API_KEY='[\w-]+\.[\w-]+'$/m);
      assert.match(banner, new RegExp(`^  export CHECKOUT_URL=${service.url}$`, 'm'));
      assert.equal(await adminStatus(service, 'admin', password), 200);
      assert.equal(warnings.length, 0);
    } else {
      assert.equal(warnings.length, 1, `one warning naming npm run admin:create:\n${service.output.stdout}`);
      assert.equal(warnings[0].level, 40); // pino's warn
      assert.doesNotMatch(service.output.stdout, /first start/);
    }
  });

  it('admin:create makes an admin with a generated password printed once, who can sign in; a start then stays quiet', async () => {
    const created = await adminCreate({ ...db.env }, cwd);
    assert.equal(created.code, 0, created.stderr);
    const password = /^Admin user "admin" created\. Its password \(shown only this once\): (\S+)$/m.exec(
      created.stdout,
    )?.[1];
    assert.ok(password && password.length >= 16, created.stdout);

    service = await startService({ ...db.env });
    assert.equal(await adminStatus(service, 'admin', password), 200);
    assert.equal(await adminStatus(service, 'admin', 'not-the-password'), 401);
    assert.doesNotMatch(service.output.stdout, /first start|npm run admin:create/);
  });

  it('admin:create takes ADMIN_USERNAME and ADMIN_PASSWORD, never prints the password, and refuses a taken name', async () => {
    const env = { ...db.env, ADMIN_USERNAME: 'ops-lead', ADMIN_PASSWORD: 'a long enough password' };
    const created = await adminCreate(env, cwd);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'Admin user "ops-lead" created with the password in ADMIN_PASSWORD.\n');

    const again = await adminCreate({ ...env, ADMIN_PASSWORD: 'another long password' }, cwd);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /A user named "ops-lead" already exists: nothing changed/);
    assert.doesNotMatch(again.stdout + again.stderr, /another long password/);

    const tooShort = await adminCreate({ ...db.env, ADMIN_USERNAME: 'x', ADMIN_PASSWORD: 'short' }, cwd);
    assert.equal(tooShort.code, 1);
    assert.match(tooShort.stderr, /ADMIN_PASSWORD must be at least 8 characters/);

    service = await startService({ ...db.env });
    assert.equal(await adminStatus(service, 'ops-lead', 'a long enough password'), 200);
    assert.equal(await adminStatus(service, 'ops-lead', 'another long password'), 401);
  });
});

describe('admin:create with a DATABASE_URL that is not one', () => {
  let cwd: string;
  before(() => {
    cwd = mkdtempSync(join(tmpdir(), 'checkout-first-admin-'));
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  it('exits 1 naming the problem, without a stack trace', async () => {
    const result = await adminCreate({ DATABASE_URL: 'not a url' }, cwd);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /DATABASE_URL/);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });
});
