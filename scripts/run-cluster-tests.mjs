#!/usr/bin/env node
// `npm run test:cluster`: starts a 3-node MariaDB Galera cluster on this machine (Debian's
// mariadb-server + galera-4 + rsync; see test/cluster/galera.ts), runs the cluster tests
// (dist/test/cluster/*.cluster-spec.js, one file at a time: some kill nodes) against two service
// replicas on different nodes, and always stops the cluster. Ends with "N passed, N failed".
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

let code = 1;
const countsFile = join(tmpdir(), `checkout-cluster-counts-${process.pid}.json`);
const COUNTING_REPORTER = resolve(import.meta.dirname, 'counting-reporter.mjs');
try {
  console.log('=== starting a 3-node Galera cluster ===');
  await cluster.start();
  console.log(`\n=== cluster tests: ${files.length} file(s) ===`);
  code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--test',
        '--test-concurrency=1',
        '--test-timeout=300000',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${COUNTING_REPORTER}`,
        `--test-reporter-destination=${countsFile}`,
        ...files,
      ],
      { env: { ...process.env, GALERA_DIR: baseDir }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('close', (exit) => resolve(exit ?? 1));
  });
} catch (error) {
  console.error(`\n*** the cluster did not start: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await stop();
}
// Counted by the runner's own events (counting-reporter.mjs), not read back from its output.
let counts = { passed: 0, failed: 0, cancelled: 0 };
try {
  counts = JSON.parse(readFileSync(countsFile, 'utf8'));
} catch {
  // the runner died before writing its counts: the exit code says it failed
}
rmSync(countsFile, { force: true });
const failed =
  counts.failed + counts.cancelled + (code !== 0 && counts.failed + counts.cancelled === 0 ? 1 : 0);
console.log(`\ncluster tests: ${counts.passed} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
