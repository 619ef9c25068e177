// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const REPORTER = resolve(__dirname, '..', '..', '..', 'scripts', 'tally-reporter.mjs');

interface Tally {
  counts: Record<string, number>;
  files: { file: string; ms: number }[];
}

/** What scripts/run-tests.mjs reads after each tier: the counts, and each file's time (docs/testing.md). */
describe('the tally reporter', () => {
  it("counts tests by outcome as the counting reporter does, and times each file's whole process", () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkout-tally-'));
    try {
      const slow = join(dir, 'slow.test.mjs');
      const quick = join(dir, 'quick.test.mjs');
      const broken = join(dir, 'broken.test.mjs');
      // 600 ms spent loading, before any test: part of the file's time, not of a test's.
      writeFileSync(
        slow,
        `import { it } from 'node:test';
         import assert from 'node:assert';
         await new Promise((r) => setTimeout(r, 600));
         it('passes', () => {});
         it('fails', () => assert.equal(1, 2));
         it.skip('is skipped', () => {});`,
      );
      writeFileSync(quick, `import { it } from 'node:test'; it('also passes', () => {});`);
      writeFileSync(broken, `throw new Error('does not load');`);
      const tally = join(dir, 'tally.json');
      const run = spawnSync(
        process.execPath,
        [
          '--test',
          `--test-reporter=${REPORTER}`,
          `--test-reporter-destination=${tally}`,
          slow,
          quick,
          broken,
        ],
        // Without NODE_TEST_CONTEXT: a runner started from a test would report to this one instead.
        { encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
      );
      assert.notEqual(run.status, 0);
      const { counts, files } = JSON.parse(readFileSync(tally, 'utf8')) as Tally;
      assert.deepEqual(counts, { passed: 2, failed: 2, cancelled: 0, skipped: 1, todo: 0 });
      assert.deepEqual(files.map((f) => f.file).sort(), [broken, quick, slow].sort());
      const ms = Object.fromEntries(files.map((f) => [f.file, f.ms]));
      assert.ok(ms[slow] >= 600, `the slow file took ${ms[slow]} ms`);
      assert.ok(
        files.every((f) => f.ms > 0),
        'every file timed',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
