// test-legs: sqlite only — temporary directories of the test processes: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';

/** Runs `body` in a new Node process with `tempDir` in scope; the paths it printed, one a line. */
function inChild(body: string): { paths: string[]; status: number | null } {
  const script = `const { tempDir } = require(${JSON.stringify(require.resolve('./temp-dir'))});\n${body}`;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(child.stderr, '');
  return { paths: child.stdout.split('\n').filter(Boolean), status: child.status };
}

describe('the test processes’ temporary directories', () => {
  it('removes a directory at once on remove(), the others it made when the process exits', () => {
    const { paths, status } = inChild(`
      const kept = tempDir('checkout-temp-test-');
      const removed = tempDir('checkout-temp-test-');
      removed.remove();
      const fs = require('node:fs');
      console.log(kept.path);
      console.log(removed.path);
      console.log(fs.existsSync(kept.path), fs.existsSync(removed.path));
    `);
    assert.equal(status, 0);
    const [kept, removed, seen] = paths;
    assert.match(kept, /checkout-temp-test-/);
    assert.equal(seen, 'true false', 'while the process runs: the kept one is there, the removed one gone');
    assert.equal(existsSync(kept), false, 'removed at exit');
    assert.equal(existsSync(removed), false);
  });

  it('also when the process ends with process.exit(1), as a test runner may', () => {
    const { paths, status } = inChild(`
      console.log(tempDir('checkout-temp-test-').path);
      process.exit(1);
    `);
    assert.equal(status, 1);
    assert.equal(paths.length, 1);
    assert.equal(existsSync(paths[0]), false);
  });
});
