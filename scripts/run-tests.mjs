#!/usr/bin/env node
// Runs the suite on the built output (dist/): unit tests once, then on the embedded SQLite database
// and on MySQL/MariaDB the service tier (`*.service-spec.ts`: services on a real database, no HTTP)
// and the e2e tests. `--unit`, `--services` and `--e2e` run only those tiers (they combine);
// TEST_FILTER (a regex on the path) narrows every tier. With CI=true the MySQL leg is mandatory: an
// unreachable server fails the run. Elsewhere a missing server is reported plainly and the leg is
// skipped. The e2e tier ends with the README tour (scripts/readme-tour.mjs, on SQLite only); the
// whole run with the OpenAPI lint and a "N passed, N failed" line.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';

const args = new Set(process.argv.slice(2));
const chosen = ['--unit', '--services', '--e2e'].filter((tier) => args.has(tier));
/** The tiers to run: those named, or every one (and the OpenAPI lint) when none is. */
const runs = (tier) => chosen.length === 0 || chosen.includes(tier);
const ci = process.env.CI === 'true';
const mysqlUrl = process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test';
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const filter = process.env.TEST_FILTER ? new RegExp(process.env.TEST_FILTER) : null;

function findFiles(dir, suffix) {
  let found = [];
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found = found.concat(findFiles(path, suffix));
    else if (path.endsWith(suffix) && (!filter || filter.test(path))) found.push(path);
  }
  return found.sort();
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const COUNTING_REPORTER = resolve(import.meta.dirname, 'counting-reporter.mjs');
let reporterRuns = 0;

/** The counting reporter's JSON line; all zero when the runner died before writing it. */
function readCounts(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0 };
  } finally {
    rmSync(file, { force: true });
  }
}

/** Runs node:test on `files` with the spec reporter on stdout; counts come from counting-reporter.mjs. */
function runNodeTests(label, files, env) {
  if (files.length === 0) return Promise.resolve(0);
  console.log(`\n=== ${label}: ${files.length} file(s) ===`);
  const countsFile = join(tmpdir(), `checkout-test-counts-${process.pid}-${++reporterRuns}.json`);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--test',
        `--test-concurrency=${concurrency}`,
        '--test-timeout=120000',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${COUNTING_REPORTER}`,
        `--test-reporter-destination=${countsFile}`,
        ...files,
      ],
      { env: { DB_UNIT_CHECKS: 'true', ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('close', (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`=== ${label}: done in ${seconds} s ===`);
      const counts = readCounts(countsFile);
      totals.passed += counts.passed;
      totals.failed += counts.failed + counts.cancelled;
      totals.skipped += counts.skipped + counts.todo;
      if (code !== 0 && counts.failed + counts.cancelled === 0) totals.failed += 1; // crashed runner
      resolve(code ?? 1);
    });
  });
}

async function mysqlReachable() {
  try {
    const connection = await createConnection({ uri: mysqlUrl, connectTimeout: 5000 });
    await connection.query('SELECT 1');
    await connection.end();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** One database leg (`env` sets TEST_DB): the service tier, then the e2e tests. */
async function runLeg(label, env) {
  let code = 0;
  if (runs('--services')) code |= await runNodeTests(`services on ${label}`, serviceFiles, env);
  if (runs('--e2e')) code |= await runNodeTests(`e2e on ${label}`, e2eFiles, env);
  return code;
}

const serviceFiles = runs('--services') ? findFiles('dist/test', '.service-spec.js') : [];
const e2eFiles = runs('--e2e') ? findFiles('dist/test', '.e2e-spec.js') : [];
let exitCode = 0;
if (runs('--unit')) {
  exitCode |= await runNodeTests('unit', findFiles('dist/src', '.spec.js'), {});
}
if (serviceFiles.length + e2eFiles.length > 0) {
  exitCode |= await runLeg('embedded SQLite', { TEST_DB: 'sqlite' });
  const problem = await mysqlReachable();
  if (problem === null) {
    exitCode |= await runLeg('MySQL/MariaDB', { TEST_DB: 'mysql', MYSQL_TEST_URL: mysqlUrl });
  } else if (ci) {
    console.error(
      `\n*** MySQL leg FAILED: MySQL is unreachable at ${mysqlUrl} (${problem}). It is mandatory with CI=true.`,
    );
    totals.failed += 1;
    exitCode |= 1;
  } else {
    console.log(
      `\n*** MySQL leg DID NOT RUN: no MySQL at ${mysqlUrl} (${problem}). Start MariaDB to run it.`,
    );
  }
}
// The README as a tested tour (scripts/readme-tour.mjs): once, on the embedded database, with the
// e2e tier (and when TEST_FILTER names README.md).
if (runs('--e2e') && (!filter || filter.test('README.md'))) {
  console.log('\n=== README tour ===');
  const tour = spawnSync(process.execPath, ['scripts/readme-tour.mjs'], { stdio: 'inherit' });
  if (tour.status !== 0) {
    totals.failed += 1;
    exitCode |= 1;
  } else totals.passed += 1;
}
if (chosen.length === 0) {
  console.log('\n=== OpenAPI lint (redocly) ===');
  const lint = spawnSync(
    'npx',
    ['--no-install', 'redocly', 'lint', 'openapi.json', '--config', 'redocly.yaml'],
    { stdio: 'inherit' },
  );
  if (lint.status !== 0) {
    totals.failed += 1;
    exitCode |= 1;
  } else totals.passed += 1;
}
console.log(
  `\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`,
);
process.exit(exitCode ? 1 : 0);
