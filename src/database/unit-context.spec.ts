import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

/**
 * Runs `script` in a fresh Node process with `DB_UNIT_CHECKS` as given (the module reads it once, at
 * load), with `./unit-context` required as `c`; returns what it printed.
 */
function inProcess(checks: string | undefined, script: string): string {
  const env = { ...process.env };
  delete env.DB_UNIT_CHECKS;
  if (checks !== undefined) env.DB_UNIT_CHECKS = checks;
  const code = `const c = require(${JSON.stringify(require.resolve('./unit-context'))});\n(async () => {\n${script}\n})().catch((e) => { console.error(e); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', code], { env, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

const SCRIPT = `
  const asyncHooks = require('node:async_hooks');
  let hooked = 0;
  const original = asyncHooks.AsyncLocalStorage.prototype.run;
  asyncHooks.AsyncLocalStorage.prototype.run = function (...args) { hooked++; return original.apply(this, args); };
  const runner = {};
  const manager = { queryRunner: runner };
  const other = { queryRunner: {} };
  const unit = { active: true, afterCommit: [] };
  const seen = await c.runInUnit(runner, unit, async () => {
    await Promise.resolve();
    return {
      mine: c.unitOf(manager) === unit,
      another: c.unitOf(other) === undefined,
      inside: c.insideUnit(),
    };
  });
  unit.active = false;
  seen.afterwards = c.unitOf(manager) === undefined;
  seen.storeRuns = hooked;
  console.log(JSON.stringify(seen));
`;

describe('unit context', () => {
  it('in production (no DB_UNIT_CHECKS) finds the unit by its query runner and runs no async context', () => {
    const seen = JSON.parse(inProcess(undefined, SCRIPT)) as Record<string, unknown>;
    assert.deepEqual(seen, { mine: true, another: true, inside: false, afterwards: true, storeRuns: 0 });
  });

  it('with DB_UNIT_CHECKS=true also knows, by the async context, that the code runs inside the unit', () => {
    const seen = JSON.parse(inProcess('true', SCRIPT)) as Record<string, unknown>;
    assert.deepEqual(seen, { mine: true, another: true, inside: true, afterwards: true, storeRuns: 1 });
  });

  it('refuses a pooled connection inside a unit only where the context is tracked', () => {
    const script = `
      const unit = { active: true, afterCommit: [] };
      const refused = await c.runInUnit({}, unit, async () => {
        try { c.assertOutsideUnit(); return false; } catch (e) { return e instanceof c.PoolReadInsideUnitError; }
      });
      console.log(String(refused));
    `;
    assert.equal(inProcess('true', script), 'true');
    assert.equal(inProcess(undefined, script), 'false');
  });
});
