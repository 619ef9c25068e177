import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { UNIT_ATTEMPTS, UnitOfWork } from '../../src/database/unit-of-work';
import { startApp, TestApp } from '../setup/test-app';

const LIMIT_MS = 1000;
/** Each run of the work below takes this long, then meets a conflict: six runs take > 2 s. */
const RUN_MS = 400;
/**
 * When a unit gives up at the latest: a run starts only before the limit, and the one under way when
 * it passes still ends its work (the limit binds statements, not the work's own JavaScript: here
 * its sleep), then no run follows. So: the limit, one run, and 300 ms for a loaded machine — still
 * well short of six runs (2.4 s).
 */
const GIVES_UP_WITHIN_MS = LIMIT_MS + RUN_MS + 300;
/** Runs start at least RUN_MS apart and only before the limit: no more than this many (3). */
const RUNS_BEFORE_LIMIT = Math.ceil(LIMIT_MS / RUN_MS);

/** What a deadlock or Galera certification conflict looks like to the unit of work (errno 1213). */
const conflict = () => Object.assign(new Error('Deadlock found when trying to get lock'), { errno: 1213 });

const isUnavailable = (error: unknown): boolean => (error as { status?: number }).status === 503;

/**
 * contract §17: a unit of work's whole run — its retries included — has a time limit,
 * `DB_QUERY_TIMEOUT_MS`; so has a statement retried outside a unit (`retrying`). On both databases.
 */
describe("a unit of work's time limit (contract §17)", () => {
  let t: TestApp;
  let uow: UnitOfWork;
  let db: DataSource;
  before(async () => {
    t = await startApp({ env: { DB_QUERY_TIMEOUT_MS: String(LIMIT_MS) } });
    uow = t.app.get(UnitOfWork);
    db = t.app.get(DataSource);
  });
  after(() => t.close());

  it('a unit that keeps meeting conflicts gives up with 503 at the limit, not after six runs', async () => {
    let runs = 0;
    const exhaustedBefore = uow.stats.exhausted;
    const started = Date.now();
    await assert.rejects(
      uow.run(async (manager) => {
        runs++;
        await manager.query('SELECT 1');
        await sleep(RUN_MS);
        throw conflict();
      }),
      isUnavailable,
    );
    const ms = Date.now() - started;
    assert.ok(ms < GIVES_UP_WITHIN_MS, `gave up after ${ms} ms`);
    assert.ok(runs >= 2 && runs <= RUNS_BEFORE_LIMIT && runs < UNIT_ATTEMPTS, `${runs} runs`);
    assert.equal(uow.stats.exhausted, exhaustedBefore + 1);
  });

  it('so does a statement retried outside a unit', async () => {
    let runs = 0;
    const started = Date.now();
    await assert.rejects(
      uow.retrying(async (manager) => {
        runs++;
        await manager.query('SELECT 1');
        await sleep(RUN_MS);
        throw conflict();
      }),
      isUnavailable,
    );
    const ms = Date.now() - started;
    assert.ok(ms < GIVES_UP_WITHIN_MS, `gave up after ${ms} ms`);
    assert.ok(runs >= 2 && runs <= RUNS_BEFORE_LIMIT && runs < UNIT_ATTEMPTS, `${runs} runs`);
  });

  it('a unit within its limit commits, and what it leaves for after the commit is not bound by the limit', async () => {
    let afterwards: Promise<unknown> | undefined;
    const result = await uow.run(async (manager) => {
      await manager.query('SELECT 1');
      await sleep(LIMIT_MS * 0.6);
      uow.afterCommit(manager, () => {
        // Runs past the unit's deadline: its statement must still get the full limit.
        afterwards = sleep(LIMIT_MS * 0.6).then(() => db.query('SELECT 2 AS two'));
      });
      return 'done';
    });
    assert.equal(result, 'done');
    assert.deepEqual(await afterwards, [{ two: 2 }]);
  });
});
