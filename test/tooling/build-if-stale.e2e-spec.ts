// test-legs: sqlite only — tooling of the repository: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const SCRIPT = resolve(__dirname, '..', '..', '..', 'scripts', 'build-if-stale.mjs');

interface BuildIfStale {
  staleReason(root: string): string | null;
  inputFiles(root: string): { path: string; mtimeMs: number }[];
  STAMP: string;
}

/** A file at `path` under `root` whose modification time is `at` (seconds since the epoch). */
function file(root: string, path: string, at: number): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), '');
  utimesSync(join(root, path), at, at);
}

/** scripts/build-if-stale.mjs: `npm start` and `npm run migration:run` rebuild only a stale dist/. */
describe('the build-if-stale decision', () => {
  let script: BuildIfStale;
  let root: string;
  const BUILT = 1_800_000_000; // when the last complete build started

  before(async () => {
    // Compiled to require(): Node ≥ 20.19 (package.json engines) requires an ES module without top-level await.
    script = (await import(SCRIPT)) as BuildIfStale;
  });

  /** A tree built at BUILT whose sources are all older than the build; folders too. */
  function freshTree(): string {
    const dir = mkdtempSync(join(tmpdir(), 'checkout-build-'));
    for (const source of [
      'src/main.ts',
      'src/app/app.module.ts',
      'scripts/migrate.ts',
      'ormconfig.ts',
      'package.json',
    ]) {
      file(dir, source, BUILT - 100);
    }
    file(dir, 'tsconfig.json', BUILT - 100);
    for (const folder of ['src/app', 'src', 'scripts'])
      utimesSync(join(dir, folder), BUILT - 100, BUILT - 100);
    file(dir, 'dist/src/main.js', BUILT + 90);
    file(dir, 'dist/scripts/migrate.js', BUILT + 90);
    // The stamp of the last complete build: its start time, and the input files it saw.
    file(dir, script.STAMP, BUILT);
    writeFileSync(
      join(dir, script.STAMP),
      script
        .inputFiles(dir)
        .map((f) => f.path)
        .join('\n'),
    );
    utimesSync(join(dir, script.STAMP), BUILT, BUILT);
    return dir;
  }

  after(() => root && rmSync(root, { recursive: true, force: true }));

  it('is fresh when every source is older than the stamp of the last complete build', () => {
    root = freshTree();
    assert.equal(script.staleReason(root), null);
    // Output of a package's own build and test/ are not inputs of the service's build: building the
    // client (`npm run client:build`) rewrites clients/typescript/dist, and so its folder's mtime.
    file(root, 'test/a.e2e-spec.ts', BUILT + 500);
    const client = freshTree();
    try {
      file(client, 'clients/typescript/index.ts', BUILT - 100);
      writeFileSync(
        join(client, script.STAMP),
        script
          .inputFiles(client)
          .map((f) => f.path)
          .join('\n'),
      );
      utimesSync(join(client, script.STAMP), BUILT, BUILT);
      file(client, 'clients/typescript/dist/esm/index.js', BUILT + 500);
      utimesSync(join(client, 'clients/typescript'), BUILT + 500, BUILT + 500);
      assert.equal(script.staleReason(client), null);
    } finally {
      rmSync(client, { recursive: true, force: true });
    }
    assert.equal(script.staleReason(root), null);
  });

  it('is stale when a source anywhere under src/ or scripts/, or a config file, is newer', () => {
    for (const [changed, reason] of [
      ['src/app/app.module.ts', 'src changed since the last build'],
      ['scripts/migrate.ts', 'scripts changed since the last build'],
      ['ormconfig.ts', 'ormconfig.ts changed since the last build'],
      ['tsconfig.json', 'tsconfig.json changed since the last build'],
      ['package.json', 'package.json changed since the last build'],
    ]) {
      const dir = freshTree();
      try {
        // Saved while the last build ran: after its start, before its output was written.
        utimesSync(join(dir, changed), BUILT + 10, BUILT + 10);
        assert.equal(script.staleReason(dir), reason, changed);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('is stale when a source was added or deleted, the stamp is missing, or an output is missing', () => {
    const cases: [string, (dir: string) => void, string][] = [
      ['a new file', (dir) => file(dir, 'src/new.ts', BUILT + 10), 'src changed since the last build'],
      [
        'a deleted file',
        (dir) => rmSync(join(dir, 'src/app/app.module.ts')),
        'input files were added or removed since the last build',
      ],
      [
        'a file added with an old modification time (copied in)',
        (dir) => file(dir, 'src/old.ts', BUILT - 1000),
        'input files were added or removed since the last build',
      ],
      [
        'a failed build (no stamp)',
        (dir) => rmSync(join(dir, script.STAMP)),
        'no complete build is recorded',
      ],
      ['no main.js', (dir) => rmSync(join(dir, 'dist/src/main.js')), 'dist/src/main.js is missing'],
      [
        'no migrate.js',
        (dir) => rmSync(join(dir, 'dist/scripts/migrate.js')),
        'dist/scripts/migrate.js is missing',
      ],
    ];
    for (const [name, change, reason] of cases) {
      const dir = freshTree();
      try {
        change(dir);
        assert.equal(script.staleReason(dir), reason, name);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
