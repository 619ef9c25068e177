// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const REPORTER = resolve(__dirname, '..', '..', '..', 'scripts', 'counting-reporter.mjs');

/** What the test runners count (scripts/run-tests.mjs, run-cluster-tests.mjs): the runner's own events. */
describe('the counting reporter', () => {
  it('counts tests by outcome, not suites or files; a file that fails to load counts as one failure', () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkout-reporter-'));
    try {
      writeFileSync(
        join(dir, 'a.test.mjs'),
        `import { describe, it, before } from 'node:test';
         import assert from 'node:assert';
         describe('suite', () => {
           it('passes', () => {});
           it('fails', () => assert.equal(1, 2));
           it.skip('is skipped', () => {});
           it.todo('is to do');
         });
         describe('broken hook', () => {
           before(() => { throw new Error('no'); });
           it('cancelled 1', () => {});
           it('cancelled 2', () => {});
         });`,
      );
      writeFileSync(join(dir, 'b.test.mjs'), `throw new Error('does not load');`);
      writeFileSync(join(dir, 'c.test.mjs'), `import { it } from 'node:test'; it('also passes', () => {});`);
      const counts = join(dir, 'counts.json');
      const run = spawnSync(
        process.execPath,
        [
          '--test',
          `--test-reporter=${REPORTER}`,
          `--test-reporter-destination=${counts}`,
          join(dir, 'a.test.mjs'),
          join(dir, 'b.test.mjs'),
          join(dir, 'c.test.mjs'),
        ],
        // Without NODE_TEST_CONTEXT: a runner started from a test would report to this one instead.
        { encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
      );
      assert.notEqual(run.status, 0);
      assert.deepEqual(JSON.parse(readFileSync(counts, 'utf8')), {
        passed: 2,
        failed: 2,
        cancelled: 2,
        skipped: 1,
        todo: 1,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
