// test-legs: sqlite only — container and configuration files: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN } from '../setup/test-app';
import { createTestDatabase, TestDatabase } from '../setup/test-database';
import { RunningService, startService } from './service-process';

/** This file runs as dist/test/ops/*.js. */
const DIST = resolve(__dirname, '..', '..');
const REPO = resolve(DIST, '..');
const DOCKERFILE = readFileSync(join(REPO, 'docker', 'Dockerfile'), 'utf8');

/** The instructions of the Dockerfile's last stage (line continuations joined). */
function runtimeStage(): string[] {
  const lines = DOCKERFILE.replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const last = lines.map((l) => /^FROM\s/i.test(l)).lastIndexOf(true);
  return lines.slice(last);
}

/** The production dependencies, as `npm ci --omit=dev` installs them (top-level folders). */
function productionPackages(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  return [
    ...new Set(
      out
        .split('\n')
        .map((p) => relative(join(REPO, 'node_modules'), p.trim()))
        .filter((p) => p && !p.startsWith('..'))
        .map((p) => p.split('/node_modules/')[0]),
    ),
  ];
}

/**
 * contract §18's image, checked without a container engine (none runs here): the Dockerfile's shape,
 * then its final stage laid out as its COPY lines say — production dependencies only, the compiled
 * service — and run as the image runs it, answering the HEALTHCHECK. A runtime import of a
 * devDependency, or a file the image leaves out, fails here.
 */
describe('docker/Dockerfile', () => {
  let db: TestDatabase;
  let root: string;
  let service: RunningService | null = null;
  before(async () => {
    db = await createTestDatabase();
    root = mkdtempSync(join(tmpdir(), 'checkout-image-'));
  });
  after(async () => {
    service?.kill();
    await service?.exited.catch(() => undefined);
    await db.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('is multi-stage, installs production dependencies with npm ci --omit=dev, runs as a non-root user', () => {
    const stages = DOCKERFILE.match(/^FROM\s.+\sAS\s+(\S+)$/gim) ?? [];
    assert.ok(stages.length >= 3, `stages: ${stages.join(', ')}`);
    assert.match(DOCKERFILE, /RUN npm ci --omit=dev/);
    const runtime = runtimeStage();
    assert.deepEqual(
      runtime.filter((l) => /^USER\s/i.test(l)),
      ['USER node'],
    );
    assert.ok(
      !runtime.some((l) => /^RUN npm ci(?!.*--omit=dev)/.test(l)),
      'no dev dependencies in the image',
    );
    assert.match(runtime.find((l) => /^HEALTHCHECK/i.test(l)) ?? '', /\/health\/ready/);
    assert.ok(runtime.includes('CMD ["node", "dist/src/main.js"]'));
  });

  it('runs from its final stage alone and answers its own HEALTHCHECK', async () => {
    for (const line of runtimeStage().filter((l) => /^COPY\s/i.test(l))) {
      const parts = line.split(/\s+/).slice(1);
      const from = parts.find((p) => p.startsWith('--from='))?.slice('--from='.length);
      const [source, target] = parts.filter((p) => !p.startsWith('--'));
      const destination = join(root, target);
      if (from === 'deps') {
        assert.equal(source, '/app/node_modules');
        for (const pkg of productionPackages()) {
          cpSync(join(REPO, 'node_modules', pkg), join(destination, pkg), { recursive: true });
        }
      } else if (from === 'build') {
        assert.match(source, /^\/app\/dist\//);
        cpSync(join(DIST, source.slice('/app/dist/'.length)), destination, { recursive: true });
      } else {
        cpSync(join(REPO, source), join(destination, target.endsWith('/') ? source : ''), {
          recursive: true,
        });
      }
    }
    service = await startService(
      { ...db.env, NODE_ENV: 'production', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
      60_000,
      { mainJs: join(root, 'dist', 'src', 'main.js'), cwd: root },
    );
    const ready = await fetch(`${service.url}/health/ready`);
    assert.equal(ready.status, 200);
    const docs = await fetch(`${service.url}/docs-json`);
    assert.equal(docs.status, 200, 'the OpenAPI document is served from the image too');

    const healthcheck = runtimeStage().find((l) => /^HEALTHCHECK/i.test(l))!;
    const command = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD') + 3).trim()) as string[];
    assert.equal(command[0], 'node');
    const port = new URL(service.url).port;
    const probe = spawnSync(process.execPath, command.slice(1), { env: { PORT: port }, timeout: 10_000 });
    assert.equal(probe.status, 0, `HEALTHCHECK exit status: ${probe.stderr?.toString()}`);
    const down = spawnSync(process.execPath, command.slice(1), { env: { PORT: '1' }, timeout: 10_000 });
    assert.equal(down.status, 1, 'the HEALTHCHECK fails when nothing answers');
  });
});
