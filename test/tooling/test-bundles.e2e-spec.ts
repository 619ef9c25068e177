// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';

const SCRIPTS = resolve(__dirname, '..', '..', '..', 'scripts');

interface Entry {
  file: string;
  source: string;
  seconds: number;
  alone?: boolean;
}
interface Bundle {
  files: Entry[];
  seconds: number;
}
interface TestBundles {
  planBundles(files: Entry[], targetSeconds: number): Bundle[];
  writeBundle(dir: string, index: number, bundle: Bundle, fileTimeoutMs: number): string;
}

const entry = (name: string, seconds: number, alone = false): Entry => ({
  file: `/dist/test/${name}.js`,
  source: `test/${name}.ts`,
  seconds,
  alone,
});

/** scripts/test-bundles.mjs: a tier's files run a few per process (docs/testing.md "Bundles"). */
describe('test bundles', () => {
  let bundles: TestBundles;
  before(async () => {
    bundles = (await import(join(SCRIPTS, 'test-bundles.mjs'))) as TestBundles;
  });

  it('packs files slowest first up to the target; a slower file, or one marked alone, runs by itself', () => {
    const planned = bundles.planBundles(
      [entry('a', 5), entry('slow', 50), entry('b', 20), entry('c', 25), entry('d', 10), entry('e', 2, true)],
      40,
    );
    assert.deepEqual(
      planned.map((b) => b.files.map((f) => f.source.slice(5, -3))),
      [['slow'], ['c', 'd', 'a'], ['b'], ['e']],
    );
    assert.deepEqual(
      planned.map((b) => b.seconds),
      [50, 40, 20, 2],
    );
  });

  it("runs each file of a bundle in its own suite, with its own hooks, and times each file's suite", () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkout-bundles-test-'));
    try {
      const first = join(dir, 'first.js');
      const second = join(dir, 'second.js');
      const broken = join(dir, 'broken.js');
      // A file-level hook of the first file must not run for the second file's tests.
      writeFileSync(
        first,
        `const { describe, it, beforeEach } = require('node:test');
         const assert = require('node:assert');
         globalThis.firstHookRuns = 0;
         beforeEach(() => { globalThis.firstHookRuns++; });
         it('waits', () => new Promise((r) => setTimeout(r, 300)));
         describe('inner', () => { it('fails', () => assert.equal(1, 2)); });`,
      );
      writeFileSync(
        second,
        `const { it } = require('node:test');
         const assert = require('node:assert');
         it('is outside the first file\\'s hooks', () => assert.equal(globalThis.firstHookRuns, 2));`,
      );
      writeFileSync(broken, `throw new Error('does not load');`);
      const bundleDir = mkdtempSync(join(tmpdir(), 'checkout-bundles-'));
      const bundle = bundles.writeBundle(
        bundleDir,
        0,
        {
          seconds: 3,
          files: [
            { file: first, source: 'test/first.ts', seconds: 1 },
            { file: second, source: 'test/second.ts', seconds: 1 },
            { file: broken, source: 'test/broken.ts', seconds: 1 },
          ],
        },
        60_000,
      );
      const tally = join(dir, 'tally.json');
      const run = spawnSync(
        process.execPath,
        [
          '--test',
          `--test-reporter=${join(SCRIPTS, 'tally-reporter.mjs')}`,
          `--test-reporter-destination=${tally}`,
          bundle,
        ],
        { encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
      );
      rmSync(bundleDir, { recursive: true, force: true });
      assert.notEqual(run.status, 0);
      const { counts, files } = JSON.parse(readFileSync(tally, 'utf8')) as {
        counts: Record<string, number>;
        files: { file: string; ms: number }[];
      };
      // passed: "waits", the second file's test; failed: "fails", the broken file's "loads".
      assert.deepEqual(counts, { passed: 2, failed: 2, cancelled: 0, skipped: 0, todo: 0 });
      assert.deepEqual(
        files.map((f) => f.file),
        ['test/first.ts', 'test/second.ts', 'test/broken.ts'],
      );
      assert.ok(files[0].ms >= 300, `the first file took ${files[0].ms} ms`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
