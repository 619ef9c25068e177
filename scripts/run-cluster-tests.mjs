#!/usr/bin/env node
// `npm run test:cluster`: starts a 3-node MariaDB Galera cluster on this machine (Debian's
// mariadb-server + galera-4 + rsync; see test/cluster/galera.ts), runs the cluster tests
// (dist/test/cluster/*.cluster-spec.js, one file at a time: some kill nodes) against two service
// replicas on different nodes, and always stops the cluster. Ends with "N passed, N failed".
//   TEST_FILTER=<regex on path>  run some of the files only
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const stop = () => (stopping ??= cluster.stop().catch((error) => console.error(`could not stop the cluster: ${error}`)));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void stop().then(() => process.exit(130));
  });
}

let code = 1;
let output = '';
try {
  console.log('=== starting a 3-node Galera cluster ===');
  await cluster.start();
  console.log(`\n=== cluster tests: ${files.length} file(s) ===`);
  code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--test', '--test-concurrency=1', '--test-reporter=spec', '--test-timeout=300000', ...files],
      { env: { ...process.env, GALERA_DIR: baseDir }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    child.on('close', (exit) => resolve(exit ?? 1));
  });
} catch (error) {
  console.error(`\n*** the cluster did not start: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await stop();
}
// The reporter's summary ("ℹ pass N") comes before the failures' details: read the last one.
const count = (name) => Number([...output.matchAll(new RegExp(`ℹ ${name} (\\d+)`, 'g'))].at(-1)?.[1] ?? 0);
const failed = count('fail') + count('cancelled') + (code !== 0 && count('fail') + count('cancelled') === 0 ? 1 : 0);
console.log(`\ncluster tests: ${count('pass')} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
