import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { ServiceUnavailable } from '../common/errors/domain-errors';
import type { AppConfig } from '../config/app-config';
import { StatementTimeoutError } from './db-errors';
import { UNIT_ATTEMPTS, UnitOfWork } from './unit-of-work';

/** How one run of a unit ends: `work` or `commit` throws the error (or nothing fails). */
type Outcome = { at: 'work' | 'commit'; error: Error } | null;

/**
 * A MySQL data source whose query runners fail as `outcomes` say, run after run (the last one
 * repeats); `runs` counts the runs that started.
 */
function fakeDataSource(outcomes: Outcome[]): { dataSource: DataSource; runs: () => number } {
  let runs = 0;
  const dataSource = {
    options: { type: 'mysql' },
    subscribers: [],
    createQueryRunner: () => {
      const outcome = outcomes[Math.min(runs, outcomes.length - 1)];
      runs++;
      const runner = {
        isTransactionActive: false,
        databaseConnection: {},
        manager: { outcome } as unknown as EntityManager,
        connect: () => Promise.resolve(runner.databaseConnection),
        startTransaction: () => {
          runner.isTransactionActive = true;
          return Promise.resolve();
        },
        commitTransaction: () => {
          if (outcome?.at === 'commit') return Promise.reject(outcome.error);
          runner.isTransactionActive = false;
          return Promise.resolve();
        },
        rollbackTransaction: () => {
          runner.isTransactionActive = false;
          return Promise.resolve();
        },
        release: () => Promise.resolve(),
      };
      return runner;
    },
  } as unknown as DataSource;
  return { dataSource, runs: () => runs };
}

const config = { database: { pool: { queryTimeoutMs: 10_000, acquireTimeoutMs: 5000 } } } as AppConfig;

/** The work of every run: fails where its runner's outcome says. */
const work = (manager: EntityManager): Promise<string> => {
  const { outcome } = manager as unknown as { outcome: Outcome };
  return outcome?.at === 'work' ? Promise.reject(outcome.error) : Promise.resolve('done');
};

const err = (message: string, fields: Record<string, unknown>): Error =>
  Object.assign(new Error(message), fields);
const notReady = () =>
  err('WSREP has not yet prepared node for application use', { errno: 1047, code: 'ER_UNKNOWN_COM_ERROR' });

describe('UnitOfWork: what it runs again (contract §17)', () => {
  before(() => {
    Logger.overrideLogger(false); // its warnings when a unit gives up
  });
  it('1047 at COMMIT (a Galera node not ready: not committed) runs the unit again whole', async () => {
    const { dataSource, runs } = fakeDataSource([{ at: 'commit', error: notReady() }, null]);
    const uow = new UnitOfWork(dataSource, config);
    assert.equal(await uow.run(work), 'done');
    assert.equal(runs(), 2);
    assert.equal(uow.stats.retries, 1);
  });

  it('1047 inside the unit runs it again at once, with no backoff: the next connection comes from another node', async () => {
    const { dataSource, runs } = fakeDataSource([
      { at: 'work', error: notReady() },
      { at: 'work', error: notReady() },
      { at: 'work', error: notReady() },
      { at: 'work', error: notReady() },
      { at: 'commit', error: notReady() },
      null,
    ]);
    const uow = new UnitOfWork(dataSource, config);
    const started = performance.now();
    assert.equal(await uow.run(work), 'done');
    const ms = performance.now() - started;
    assert.equal(runs(), UNIT_ATTEMPTS);
    // Conflicts wait 0–30, 0–60, 0–120, 0–240 and 0–400 ms before runs 2 to 6.
    assert.ok(ms < 100, `5 runs again in ${ms.toFixed(1)} ms`);
  });

  it('a node that stays not ready: 503 after the bounded number of runs', async () => {
    const { dataSource, runs } = fakeDataSource([{ at: 'work', error: notReady() }]);
    const uow = new UnitOfWork(dataSource, config);
    await assert.rejects(uow.run(work), ServiceUnavailable);
    assert.equal(runs(), UNIT_ATTEMPTS);
    assert.equal(uow.stats.exhausted, 1);
  });

  it('a connection lost at COMMIT is not run again (it may have committed)', async () => {
    const lost = err('Connection lost: The server closed the connection.', {
      code: 'PROTOCOL_CONNECTION_LOST',
    });
    const { dataSource, runs } = fakeDataSource([{ at: 'commit', error: lost }, null]);
    await assert.rejects(new UnitOfWork(dataSource, config).run(work), lost);
    assert.equal(runs(), 1);
  });

  it('a COMMIT its closed connection never sent is run again (nothing was committed)', async () => {
    const unsent = err("Can't add new command when connection is in closed state", { fatal: true });
    const { dataSource, runs } = fakeDataSource([{ at: 'commit', error: unsent }, null]);
    assert.equal(await new UnitOfWork(dataSource, config).run(work), 'done');
    assert.equal(runs(), 2);
  });

  it('a retried statement refused unsent because its time limit passed: 503, as a run out of time', async () => {
    // What TypeORM throws for the pool's refusal (failover-pool.ts): the driver error inside.
    const outOfTime = err('No time was left for the statement within its time limit', {
      driverError: new StatementTimeoutError(0),
    });
    const { dataSource, runs } = fakeDataSource([{ at: 'work', error: outOfTime }, null]);
    const uow = new UnitOfWork(dataSource, config);
    await assert.rejects(uow.retrying(work), ServiceUnavailable);
    assert.equal(runs(), 1);
    assert.equal(uow.stats.exhausted, 1);
    // A statement sent that got no answer in time may have run: not run again, its error kept.
    const unanswered = err('The database did not answer within 900 ms', {
      driverError: new StatementTimeoutError(900),
    });
    const second = fakeDataSource([{ at: 'work', error: unanswered }, null]);
    await assert.rejects(new UnitOfWork(second.dataSource, config).retrying(work), unanswered);
    assert.equal(second.runs(), 1);
  });

  it('a refused login or any other error is not run again', async () => {
    const denied = err("Access denied for user 'x'@'y'", { errno: 1045, code: 'ER_ACCESS_DENIED_ERROR' });
    const { dataSource, runs } = fakeDataSource([{ at: 'work', error: denied }, null]);
    await assert.rejects(new UnitOfWork(dataSource, config).run(work), denied);
    assert.equal(runs(), 1);
  });
});

/**
 * In a fresh Node process (unit-context reads `DB_UNIT_CHECKS` once, at load), with `DB_UNIT_CHECKS`
 * as given: a unit that opens another inside it, on a fake database of `type`. Prints how the inner
 * `run` ended.
 */
function nestedRun(type: 'mysql' | 'better-sqlite3', checks: string | undefined): string {
  const env = { ...process.env };
  delete env.DB_UNIT_CHECKS;
  if (checks !== undefined) env.DB_UNIT_CHECKS = checks;
  const script = `
    const { UnitOfWork } = require(${JSON.stringify(require.resolve('./unit-of-work'))});
    const runner = () => {
      const r = {
        isTransactionActive: false, databaseConnection: {}, manager: {},
        connect: async () => {}, release: async () => {},
        startTransaction: async () => { r.isTransactionActive = true; },
        commitTransaction: async () => { r.isTransactionActive = false; },
        rollbackTransaction: async () => { r.isTransactionActive = false; },
      };
      return r;
    };
    const dataSource = { options: { type: '${type}' }, subscribers: [], createQueryRunner: runner };
    const uow = new UnitOfWork(dataSource, { database: { pool: { queryTimeoutMs: 10000, acquireTimeoutMs: 5000 } } });
    uow.run(async () => {
      await Promise.resolve();
      return uow.run(async () => 'inner committed').catch((e) => 'refused: ' + e.message);
    }).then(console.log, (e) => { console.error(e); process.exit(1); });
  `;
  const result = spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

describe('UnitOfWork: a unit opened inside another', () => {
  const refused = 'refused: UnitOfWork.run was called inside another unit of work';

  it('is refused where the async context is tracked: DB_UNIT_CHECKS=true (every test run), and SQLite always', () => {
    assert.equal(nestedRun('mysql', 'true'), refused);
    assert.equal(nestedRun('better-sqlite3', 'true'), refused);
    assert.equal(nestedRun('better-sqlite3', undefined), refused);
  });

  it('is not seen at run time on MySQL without DB_UNIT_CHECKS (no AsyncLocalStorage there): test/tooling/units.e2e-spec.ts refuses it in the sources', () => {
    assert.equal(nestedRun('mysql', undefined), 'inner committed');
  });
});
