#!/usr/bin/env node
// Runs the suite on the built output (dist/): unit tests once, then on the embedded SQLite database
// and on MySQL/MariaDB the service tier (`*.service-spec.ts`: services on a real database, no HTTP)
// and the e2e tests. `--unit`, `--services` and `--e2e` run only those tiers (they combine);
// TEST_FILTER (a regex on the path) narrows every tier. With CI=true the MySQL leg is mandatory: an
// unreachable server fails the run. Elsewhere a missing server is reported plainly and the leg is
// skipped. The e2e tier ends with the README tour (scripts/readme-tour.mjs, on SQLite only); the
// whole run with the OpenAPI lint and a "N passed, N failed" line.
// Each leg migrates one template database before its workers start (prepareTemplate in
// test/setup/test-database.ts); every test file's database is a copy of it, so no file runs the
// migrations. The legs run side by side, a few files per process (test-bundles.mjs: bundles,
// one-leg and quiet files). The run ends with its time per tier and leg and its ten slowest files
// (docs/testing.md).
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import {
  ALONE_MARKER,
  fileHolds,
  ONE_LEG_MARKER,
  planBundles,
  QUIET_MARKER,
  writeBundle,
} from './test-bundles.mjs';

const args = new Set(process.argv.slice(2));
const chosen = ['--unit', '--services', '--e2e'].filter((tier) => args.has(tier));
/** The tiers to run: those named, or every one (and the OpenAPI lint) when none is. */
const runs = (tier) => chosen.length === 0 || chosen.includes(tier);
const ci = process.env.CI === 'true';
const mysqlUrl = process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test';
/**
 * The two database legs run side by side (`TEST_LEGS=sequential`: one after the other); the MySQL
 * leg's output is kept in a file and printed after the SQLite leg's. Each leg runs
 * `TEST_CONCURRENCY` processes at a time: 2 by default side by side, 3 one after the other.
 */
const legsSideBySide = process.env.TEST_LEGS !== 'sequential';
/** `TEST_LEG=sqlite` or `mysql`: that leg only (a hosted CI job per leg); unset: both. */
const onlyLeg = process.env.TEST_LEG ?? null;
if (onlyLeg !== null && onlyLeg !== 'sqlite' && onlyLeg !== 'mysql') {
  console.error(`TEST_LEG must be sqlite or mysql, not ${JSON.stringify(onlyLeg)}`);
  process.exit(2);
}
const runsLeg = (leg) => onlyLeg === null || onlyLeg === leg;
const concurrency = process.env.TEST_CONCURRENCY ?? (legsSideBySide && onlyLeg === null ? '2' : '3');
const filter = process.env.TEST_FILTER ? new RegExp(process.env.TEST_FILTER) : null;
/** How long one test file may run. */
const FILE_TIMEOUT_MS = 120_000;
/** About how long (s) a bundle of files runs in one process; 0: every file in its own (test-bundles.mjs). */
const bundleSeconds = Number(process.env.TEST_BUNDLE_SECONDS ?? '90');
/** Each file's expected time per leg (s), from an earlier run: what the bundles are planned with. */
const TIMES_FILE = resolve(import.meta.dirname, 'test-times.json');
const expectedTimes = (() => {
  try {
    return JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
  } catch {
    return {};
  }
})();

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
const TALLY_REPORTER = resolve(import.meta.dirname, 'tally-reporter.mjs');
let reporterRuns = 0;
/** How long each part of the run took (`label`, seconds), in order; and each test file. */
const times = [];
const fileTimes = [];
const runStarted = performance.now();
const since = (started) => (performance.now() - started) / 1000;

/** The tally reporter's JSON line; nothing counted when the runner died before writing it. */
function readTally(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { counts: { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0 }, files: [] };
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Runs node:test on `files` with the spec reporter on stdout; the counts and each file's time come
 * from tally-reporter.mjs.
 */
function runNodeTests(label, files, env, out = TERMINAL, processesAtOnce = concurrency) {
  if (files.length === 0) return Promise.resolve(0);
  const { paths, processes, filesPerProcess, cleanUp } = bundled(files, label === 'unit' ? 1 : 8);
  out.log(`\n=== ${label}: ${files.length} file(s) in ${processes} process(es) ===`);
  const tallyFile = join(tmpdir(), `checkout-test-tally-${process.pid}-${++reporterRuns}.json`);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--test',
        `--test-concurrency=${processesAtOnce}`,
        // A file's time limit; a bundle's is the sum of its files' (each file's suite has its own).
        `--test-timeout=${FILE_TIMEOUT_MS * filesPerProcess}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${TALLY_REPORTER}`,
        `--test-reporter-destination=${tallyFile}`,
        ...paths,
      ],
      {
        env: { DB_UNIT_CHECKS: 'true', ...process.env, ...env },
        stdio: ['ignore', out.stdio, out.stdio],
      },
    );
    child.on('close', (code) => {
      cleanUp();
      const seconds = since(started);
      out.log(`=== ${label}: done in ${seconds.toFixed(1)} s ===`);
      times.push({ label, seconds });
      const { counts, files: timed } = readTally(tallyFile);
      for (const { file, ms } of timed) fileTimes.push({ label, file, seconds: ms / 1000 });
      totals.passed += counts.passed;
      totals.failed += counts.failed + counts.cancelled;
      totals.skipped += counts.skipped + counts.todo;
      if (code !== 0 && counts.failed + counts.cancelled === 0) totals.failed += 1; // crashed runner
      resolve(code ?? 1);
    });
  });
}

/**
 * The processes that run `files` (test-bundles.mjs): bundles of about {@link bundleSeconds} planned
 * from scripts/test-times.json (`unknownSeconds` for a file it lacks); a bundle of one file is that
 * file itself. `cleanUp` removes the generated bundles.
 */
function bundled(files, unknownSeconds) {
  if (!(bundleSeconds > 0))
    return { paths: files, processes: files.length, filesPerProcess: 1, cleanUp: () => {} };
  const entries = files.map((file) => ({
    file: resolve(file),
    source: sourceOf(file),
    seconds: expectedTimes[sourceOf(file)] ?? unknownSeconds,
    alone: fileHolds(file, ALONE_MARKER),
  }));
  // At least two bundles per worker, so a slow bundle is not the last one left running.
  const total = entries.reduce((sum, entry) => sum + entry.seconds, 0);
  const target = Math.min(bundleSeconds, total / (Number(concurrency) * 2));
  const dir = mkdtempSync(join(tmpdir(), 'checkout-bundles-'));
  const bundles = planBundles(entries, target);
  const paths = bundles.map((bundle, index) =>
    bundle.files.length === 1 ? bundle.files[0].file : writeBundle(dir, index, bundle, FILE_TIMEOUT_MS),
  );
  return {
    paths,
    processes: paths.length,
    filesPerProcess: Math.max(...bundles.map((bundle) => bundle.files.length)),
    cleanUp: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Where a run's output goes: the terminal. */
const TERMINAL = { stdio: 'inherit', log: (text) => console.log(text) };

/** Output kept in a file (a leg running beside another); `flush` prints it and removes the file. */
function keptOutput(name) {
  const path = join(tmpdir(), `checkout-test-${name}-${process.pid}.log`);
  const fd = openSync(path, 'w');
  return {
    stdio: fd,
    log: (text) => writeSync(fd, `${text}\n`),
    flush() {
      closeSync(fd);
      process.stdout.write(readFileSync(path));
      rmSync(path, { force: true });
    },
  };
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

/**
 * The leg's template database, migrated once before its workers start; its TEST_DB_TEMPLATE is
 * what every test file's createTestDatabase copies. Null (and counted as a failure) when the
 * migrations fail: no file of the leg could run.
 */
async function prepareTemplate(label, env, out) {
  const started = performance.now();
  try {
    const require = createRequire(import.meta.url);
    const { prepareTemplate: prepare } = require(resolve('dist/test/setup/test-database.js'));
    const template = await prepare(env.TEST_DB, env.MYSQL_TEST_URL);
    const seconds = since(started);
    out.log(`\n=== template database on ${label}: migrated in ${seconds.toFixed(1)} s ===`);
    times.push({ label: `template database on ${label}`, seconds });
    return template;
  } catch (error) {
    console.error(`\n*** ${label} leg FAILED: its template database could not be migrated:`, error);
    totals.failed += 1;
    return null;
  }
}

/**
 * One database leg (`env` sets TEST_DB): the service tier, then the e2e tests, on its template's
 * copies. Its `code`, and `finish()`: its quiet files (QUIET_MARKER), one at a time once nothing
 * else runs, then the template dropped; it answers their code.
 */
async function runLeg(label, env, out = TERMINAL, { coversShared = true } = {}) {
  const template = await prepareTemplate(label, env, out);
  if (template === null) return { code: 1, finish: () => Promise.resolve(0) };
  const legEnv = { ...env, ...template.env };
  // Files marked ONE_LEG_MARKER do not depend on the database: the SQLite leg runs them.
  const ofLeg = (files) => (env.TEST_DB === 'sqlite' ? files : files.filter((f) => !oneLeg.has(f)));
  const loud = (files) => ofLeg(files).filter((f) => !quiet.has(f));
  /**
   * Runs `files` as `name`; without coverage of the files both legs run when `coversShared` is
   * false (the other leg writes it): those first, then this leg's own files with coverage.
   */
  const run = async (name, files, output, processesAtOnce) => {
    if (coversShared) return runNodeTests(name, files, legEnv, output, processesAtOnce);
    const shared = files.filter((f) => !oneLeg.has(f));
    const own = files.filter((f) => oneLeg.has(f));
    return (
      (await runNodeTests(name, shared, { ...legEnv, ...NO_COVERAGE }, output, processesAtOnce)) |
      (await runNodeTests(`${name}, its own files`, own, legEnv, output, processesAtOnce))
    );
  };
  let code = 0;
  try {
    if (runs('--services')) code |= await run(`services on ${label}`, loud(serviceFiles), out);
    if (runs('--e2e')) code |= await run(`e2e on ${label}`, loud(e2eFiles), out);
  } catch (error) {
    await template.drop();
    throw error;
  }
  const quietFiles = ofLeg([...serviceFiles, ...e2eFiles].filter((f) => quiet.has(f)));
  return {
    code,
    async finish() {
      try {
        return await run(`quiet files on ${label}`, quietFiles, TERMINAL, '1');
      } finally {
        await template.drop();
      }
    },
  };
}

/**
 * An env that turns V8 coverage off for a test process and what it starts: empty, not left out
 * (Node's child_process puts a parent's NODE_V8_COVERAGE back into an env that lacks the name).
 * With coverage on (NODE_V8_COVERAGE set: c8, .ci/run) and both legs running, a file that runs on
 * both legs writes its coverage on the MySQL leg only: the SQLite leg's copy would add ~1 s of CPU
 * per process (a 13 MB write at exit) and ~13 % to its tests, and a second copy of nearly the same
 * lines for c8 to merge. The SQLite leg's own files (ONE_LEG_MARKER) write theirs.
 */
const NO_COVERAGE = { NODE_V8_COVERAGE: '' };
const coverageOn = Boolean(process.env.NODE_V8_COVERAGE);

/** `dist/test/a/b.e2e-spec.js` as its source, `test/a/b.e2e-spec.ts`. */
const sourceOf = (file) =>
  relative(process.cwd(), file)
    .replace(/^dist[\\/]/, '')
    .replace(/\.js$/, '.ts');

/** The time of each tier and leg, of the whole run, and the ten slowest files (docs/testing.md). */
function printTimes() {
  const width = Math.max(...times.map((t) => t.label.length), 'the whole run'.length);
  console.log('\n=== Time per tier and leg ===');
  for (const { label, seconds } of times)
    console.log(`  ${label.padEnd(width)}  ${seconds.toFixed(1).padStart(6)} s`);
  console.log(`  ${'the whole run'.padEnd(width)}  ${since(runStarted).toFixed(1).padStart(6)} s`);
  if (fileTimes.length === 0) return;
  // A file of the service or e2e tier runs once per leg: its times on each, slowest first by their sum.
  const byFile = new Map();
  for (const { label, file, seconds } of fileTimes) {
    const entry = byFile.get(sourceOf(file)) ?? { total: 0, runs: [] };
    entry.total += seconds;
    entry.runs.push(`${label.replace(/^(services|e2e) on /, '')} ${seconds.toFixed(1)} s`);
    byFile.set(sourceOf(file), entry);
  }
  console.log('\n=== The ten slowest files (each from its start to its end, beside the others) ===');
  const slowest = [...byFile].sort(([, a], [, b]) => b.total - a.total).slice(0, 10);
  for (const [file, { total, runs }] of slowest)
    console.log(`  ${total.toFixed(1).padStart(6)} s  ${file}  (${runs.join(', ')})`);
}

/**
 * `--save-times`: each service and e2e file's time per leg (the mean over the legs it ran on) into
 * scripts/test-times.json, which plans the next runs' bundles; files not run keep their time.
 */
function saveTimes() {
  const runsOf = new Map();
  for (const { label, file, seconds } of fileTimes) {
    if (label === 'unit') continue;
    runsOf.set(sourceOf(file), [...(runsOf.get(sourceOf(file)) ?? []), seconds]);
  }
  const times = { ...expectedTimes };
  for (const [file, seconds] of runsOf)
    times[file] = Math.round((seconds.reduce((a, b) => a + b, 0) / seconds.length) * 10) / 10;
  const sorted = Object.fromEntries(Object.entries(times).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(TIMES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`\nEach file's time saved in ${relative(process.cwd(), TIMES_FILE)}.`);
}

const serviceFiles = runs('--services') ? findFiles('dist/test', '.service-spec.js') : [];
const e2eFiles = runs('--e2e') ? findFiles('dist/test', '.e2e-spec.js') : [];
const oneLeg = new Set([...serviceFiles, ...e2eFiles].filter((file) => fileHolds(file, ONE_LEG_MARKER)));
const quiet = new Set([...serviceFiles, ...e2eFiles].filter((file) => fileHolds(file, QUIET_MARKER)));
let exitCode = 0;
if (runs('--unit')) {
  exitCode |= await runNodeTests('unit', findFiles('dist/src', '.spec.js'), {});
}
if (serviceFiles.length + e2eFiles.length > 0) {
  const problem = runsLeg('mysql') ? await mysqlReachable() : null;
  // With coverage on, the SQLite leg leaves the shared files' coverage to the MySQL leg when it runs.
  const sqliteLeg = () =>
    runLeg('embedded SQLite', { TEST_DB: 'sqlite' }, TERMINAL, {
      coversShared: !(coverageOn && runsLeg('mysql') && problem === null),
    });
  const mysqlLeg = (out) => runLeg('MySQL/MariaDB', { TEST_DB: 'mysql', MYSQL_TEST_URL: mysqlUrl }, out);
  let legs;
  if (!runsLeg('mysql')) legs = [await sqliteLeg()];
  else if (!runsLeg('sqlite')) legs = problem === null ? [await mysqlLeg()] : [];
  else if (problem === null && legsSideBySide) {
    const kept = keptOutput('mysql-leg');
    legs = await Promise.all([sqliteLeg(), mysqlLeg(kept)]);
    kept.flush();
  } else {
    legs = [await sqliteLeg()];
    if (problem === null) legs.push(await mysqlLeg());
  }
  // The quiet files once nothing else runs: they time what a process does from its start. Not the
  // two legs' side by side: each stretched the other's (24 + 71 s one after the other, 45 and
  // 106 s side by side, 2026-11-29): they start service processes of their own.
  for (const leg of legs) exitCode |= leg.code | (await leg.finish());
  if (problem !== null && ci) {
    console.error(
      `\n*** MySQL leg FAILED: MySQL is unreachable at ${mysqlUrl} (${problem}). It is mandatory with CI=true.`,
    );
    totals.failed += 1;
    exitCode |= 1;
  } else if (problem !== null) {
    console.log(
      `\n*** MySQL leg DID NOT RUN: no MySQL at ${mysqlUrl} (${problem}). Start MariaDB to run it.`,
    );
  }
}
// The README as a tested tour (scripts/readme-tour.mjs): once, on the embedded database, with the
// e2e tier (and when TEST_FILTER names README.md).
if (runs('--e2e') && runsLeg('sqlite') && (!filter || filter.test('README.md'))) {
  console.log('\n=== README tour ===');
  const started = performance.now();
  const tour = spawnSync(process.execPath, ['scripts/readme-tour.mjs'], { stdio: 'inherit' });
  times.push({ label: 'README tour', seconds: since(started) });
  if (tour.status !== 0) {
    totals.failed += 1;
    exitCode |= 1;
  } else totals.passed += 1;
}
if (chosen.length === 0) {
  console.log('\n=== OpenAPI lint (redocly) ===');
  const started = performance.now();
  const lint = spawnSync(
    'npx',
    ['--no-install', 'redocly', 'lint', 'openapi.json', '--config', 'redocly.yaml'],
    { stdio: 'inherit' },
  );
  times.push({ label: 'OpenAPI lint', seconds: since(started) });
  if (lint.status !== 0) {
    totals.failed += 1;
    exitCode |= 1;
  } else totals.passed += 1;
}
printTimes();
if (args.has('--save-times')) saveTimes();
console.log(
  `\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`,
);
process.exit(exitCode ? 1 : 0);
