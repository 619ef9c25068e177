// test-legs: sqlite only — container and configuration files: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { EVS_TIMEOUTS } from '../cluster/galera';

/** This file runs as dist/test/ops/*.js. */
const REPO = resolve(__dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

describe('the Galera failure-detection settings', () => {
  it('are the same in the cluster tests, both node definitions of compose.galera.yaml and the operations guide', () => {
    const compose = read('docker/compose.galera.yaml');
    const optionLines = compose.split('\n').filter((line) => line.includes('--wsrep-provider-options='));
    assert.equal(optionLines.length, 2, 'the shared node settings and galera-1 (the bootstrap node)');
    for (const line of optionLines) {
      const options = line.split('--wsrep-provider-options=')[1].trim().split(';');
      assert.deepEqual([...options].sort(), [...EVS_TIMEOUTS].sort(), line);
    }
    const guide = read('docs/operations.md');
    for (const setting of EVS_TIMEOUTS)
      assert.ok(guide.includes(`\`${setting}\``), `${setting} in operations.md`);
  });
});
