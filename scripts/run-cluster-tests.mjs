#!/usr/bin/env node
// `npm run test:cluster`: starts a 3-node MariaDB Galera cluster on this machine (Debian's
// mariadb-server + galera-4 + rsync; see test/cluster/galera.ts), runs the cluster tests
// (dist/test/cluster/*.cluster-spec.js) against two service replicas on different nodes, and always
// stops the cluster. The files that take a node down (NODE_FAULT_MARKER) run one at a time, alone;
// then the others side by side (each on a database of its own, none touching a node: ~half their
// time is spent waiting on the cluster). Ends with "N passed, N failed".
//   TEST_FILTER=<regex on path>  run some of the files only
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import galera from '../dist/test/cluster/galera.js';

const dir = 'dist/test/cluster';
const filter = process.env.TEST_FILTER ? new RegExp(process.env.TEST_FILTER) : null;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.cluster-spec.js'))
  .map((f) => join(dir, f))
  .filter((f) => !filter || filter.test(f))
  .sort();
/** The first-line comment of a file that kills, freezes or fences a node: no other file beside it. */
const NODE_FAULT_MARKER = 'cluster-tests: takes a node down';
const faultFiles = files.filter((f) => readFileSync(f, 'utf8').includes(NODE_FAULT_MARKER));
const otherFiles = files.filter((f) => !faultFiles.includes(f));
const baseDir = process.env.GALERA_DIR ?? join(tmpdir(), 'checkout-galera');
const cluster = new galera.GaleraCluster({ baseDir });

let stopping = null;
const stop = () =>
  (stopping ??= cluster.stop().catch((error) => console.error(`could not stop the cluster: ${error}`)));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void stop().then(() => process.exit(130));
  });
}

const COUNTING_REPORTER = resolve(import.meta.dirname, 'counting-reporter.mjs');
const counts = { passed: 0, failed: 0 };
let runs = 0;

/** Runs `batch` with `concurrency` files at a time; adds its counts. True when all passed. */
async function runFiles(batch, concurrency) {
  if (batch.length === 0) return true;
  const countsFile = join(tmpdir(), `checkout-cluster-counts-${process.pid}-${++runs}.json`);
  const code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--test',
        `--test-concurrency=${concurrency}`,
        '--test-timeout=300000',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${COUNTING_REPORTER}`,
        `--test-reporter-destination=${countsFile}`,
        ...batch,
      ],
      { env: { ...process.env, GALERA_DIR: baseDir }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('close', (exit) => resolve(exit ?? 1));
  });
  // Counted by the runner's own events (counting-reporter.mjs), not read back from its output.
  let counted = { passed: 0, failed: 0, cancelled: 0 };
  try {
    counted = JSON.parse(readFileSync(countsFile, 'utf8'));
  } catch {
    // the runner died before writing its counts: the exit code says it failed
  }
  rmSync(countsFile, { force: true });
  const failed = counted.failed + counted.cancelled;
  counts.passed += counted.passed;
  counts.failed += failed + (code !== 0 && failed === 0 ? 1 : 0);
  return code === 0 && failed === 0;
}

let passed = false;
try {
  console.log('=== starting a 3-node Galera cluster ===');
  await cluster.start();
  console.log(`\n=== cluster tests taking a node down: ${faultFiles.length} file(s), one at a time ===`);
  const faultsPassed = await runFiles(faultFiles, 1);
  console.log(`\n=== the other cluster tests: ${otherFiles.length} file(s), side by side ===`);
  const othersPassed = await runFiles(otherFiles, otherFiles.length);
  passed = faultsPassed && othersPassed;
} catch (error) {
  console.error(`\n*** the cluster did not start: ${error instanceof Error ? error.message : String(error)}`);
  counts.failed += 1;
} finally {
  await stop();
}
console.log(`\ncluster tests: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(passed && counts.failed === 0 ? 0 : 1);
