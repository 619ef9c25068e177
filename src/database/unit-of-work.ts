import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { ServiceUnavailable } from '../common/errors/domain-errors';
import { Dialect } from './dialect';
import { AppConfig } from '../config/app-config';
import { isConnectionLoss, isNodeNotReady, isOutOfTime, isRetryableConflict, isUnsent } from './db-errors';
import { SqliteGate } from './sqlite-gate';
import { acquireWithin, bindDeadline, unbindDeadline } from './time-limit';
import {
  holdingConnection,
  insideUnit,
  runInUnit,
  runOutsideUnits,
  trackUnitsByContext,
  unitOf,
  type UnitState,
} from './unit-context';

/** Runs of a unit before it gives up with 503 (the first one included). */
export const UNIT_ATTEMPTS = 6;
const BACKOFF_BASE_MS = 15;
const BACKOFF_CAP_MS = 400;

/** A failure of one run, with whether COMMIT had been sent (then the outcome is unknown). */
class RunFailed extends Error {
  constructor(
    readonly reason: unknown,
    readonly duringCommit: boolean,
  ) {
    super('unit of work failed');
  }
}

/** Counters for operators (and tests): how often units were retried or gave up. */
export interface UnitOfWorkStats {
  retries: number;
  exhausted: number;
}

/**
 * A unit of work's whole run ends a little before `DB_QUERY_TIMEOUT_MS` (a tenth of it, at most
 * 0.5 s: 9.5 s by default), so that the 503 of a unit that ran out of time — lock waits on rows a
 * hung client still holds, retried — is answered within the limit, not just after it (contract §17).
 */
export const unitTimeLimitMs = (queryTimeoutMs: number): number =>
  queryTimeoutMs - Math.min(500, Math.floor(queryTimeoutMs / 10));

/**
 * The one way to open a database transaction (contract §17).
 *
 * `run(work)` runs `work(manager)` in one transaction on one pooled connection (READ COMMITTED:
 * the pool sets it on every session). Inside, read and write only through `manager`: asking the
 * pool for another connection throws (a unit waiting for a second connection can deadlock the
 * pool). A deadlock, lock-wait timeout or Galera certification conflict — also at COMMIT — rolls
 * the unit back and runs it again whole, in a fresh transaction, up to {@link UNIT_ATTEMPTS}
 * times with jittered backoff; then 503. A Galera node not ready (1047, also at COMMIT: not
 * committed) runs it again too, without a backoff: the pool has set that node aside, so the next
 * run's connection comes from another node (or from that one once it is ready again), waited for
 * within the time limit. So `work` must be safe to run again: compute what it
 * writes inside it, and keep side effects outside the database for after the commit
 * ({@link afterCommit}).
 *
 * The whole run — waiting for connections, every statement, the retries — has one time limit,
 * {@link unitTimeLimitMs} (contract §17): no retry starts once it has passed, and on MySQL a
 * statement still waiting then is cut. Then 503. A COMMIT that got no answer in time is like one whose
 * connection was lost: it may have committed, so it is not run again (503).
 *
 * The method that starts a change owns its unit: it calls `run` once and passes `manager` to every
 * write inside (repositories and services take it explicitly). A `run` inside another unit throws.
 *
 * On the embedded SQLite database the unit also holds the {@link SqliteGate} from BEGIN to
 * COMMIT, so units run one at a time and no other request's query lands in an open transaction.
 */
@Injectable()
export class UnitOfWork {
  private readonly logger = new Logger('UnitOfWork');
  readonly stats: UnitOfWorkStats = { retries: 0, exhausted: 0 };
  private readonly gate: SqliteGate | null;
  private readonly timeLimitMs: number;
  private readonly isMysql: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    config: AppConfig,
  ) {
    this.timeLimitMs = unitTimeLimitMs(config.database.pool.queryTimeoutMs);
    this.gate = null;
    this.isMysql = Dialect.of(dataSource).isMysql;
    if (!this.isMysql) {
      this.gate = new SqliteGate(config.database.pool.acquireTimeoutMs);
      dataSource.subscribers.push(this.gate);
      trackUnitsByContext(); // one connection for all: the gate tells units apart by async context
    }
  }

  /** The embedded database's gate as a pool of one (null on MySQL, whose pool reports itself). */
  embeddedUsage(): { inUse: number; waiting: number } | null {
    return this.gate?.usage() ?? null;
  }

  /** Runs `work` in one DB transaction, retried whole on conflicts; returns what it returns. */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (insideUnit()) throw new Error('UnitOfWork.run was called inside another unit of work');
    const deadline = Date.now() + this.timeLimitMs;
    const { result, afterCommit } = await this.runRetried(work, deadline);
    // After the time limit has closed: the callbacks' own database work is not bound by it.
    for (const callback of afterCommit) runOutsideUnits(callback);
    return result;
  }

  private async runRetried<T>(
    work: (manager: EntityManager) => Promise<T>,
    deadline: number,
  ): Promise<{ result: T; afterCommit: UnitState['afterCommit'] }> {
    for (let attempt = 1; ; attempt++) {
      const unit: UnitState = { active: true, afterCommit: [] };
      try {
        const result = this.gate
          ? await this.gate.exclusive(() => this.runOnce(unit, work, deadline))
          : await this.runOnce(unit, work, deadline);
        return { result, afterCommit: unit.afterCommit };
      } catch (error) {
        if (!(error instanceof RunFailed)) throw error;
        const { reason, duringCommit } = error;
        // A Galera node not ready (1047) refused a statement, COMMIT included: nothing was
        // written. The pool has set the node aside, so the next run takes a connection of another
        // node (or of this one once it is ready again), waiting for it within the time limit: no
        // backoff.
        if (isNodeNotReady(reason)) {
          await this.beforeRetry(attempt, reason, 'Unit of work', deadline, 0);
          continue;
        }
        // Lost connection before COMMIT, or closed before COMMIT was sent: nothing was written,
        // run again (maybe on another node). Lost (or no answer in time) at COMMIT: it may have
        // committed; running again could write twice, so 503.
        const retryable =
          isRetryableConflict(reason) || (isConnectionLoss(reason) && (!duringCommit || isUnsent(reason)));
        if (!retryable) throw reason;
        await this.beforeRetry(attempt, reason, 'Unit of work', deadline);
      }
    }
  }

  /**
   * Statements that each commit on their own (no transaction), retried as a whole on the same
   * conflicts as {@link run}, within the same time limit: for single conditional writes that race
   * other replicas (claims). `work` runs them through the `manager` it is given (a connection of
   * its own per run, bound by the limit).
   */
  async retrying<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.timeLimitMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.onOwnConnection(work, deadline);
      } catch (error) {
        if (isNodeNotReady(error)) await this.beforeRetry(attempt, error, 'Statement', deadline, 0);
        else if (isRetryableConflict(error)) await this.beforeRetry(attempt, error, 'Statement', deadline);
        // A run that started just before the limit and met it before its statement was sent: it
        // gives up as a run that could not start (503), like a unit of work out of time.
        else if (isOutOfTime(error)) await this.beforeRetry(attempt, error, 'Statement', deadline, Infinity);
        else throw error;
      }
    }
  }

  /**
   * Waits before run `attempt + 1`, or gives up with 503: after {@link UNIT_ATTEMPTS} runs, or
   * when the next one could not start before `deadline`.
   */
  private async beforeRetry(
    attempt: number,
    reason: unknown,
    what: string,
    deadline: number,
    pause = backoff(attempt),
  ): Promise<void> {
    const left = deadline - Date.now();
    if (attempt >= UNIT_ATTEMPTS || left <= pause) {
      this.stats.exhausted++;
      this.logger.warn(
        { err: reason, attempts: attempt, timeLimitMs: this.timeLimitMs },
        attempt >= UNIT_ATTEMPTS
          ? `${what} gave up after ${attempt} runs (conflicts, or database nodes not ready)`
          : `${what} gave up: its time limit passed`,
      );
      throw new ServiceUnavailable();
    }
    this.stats.retries++;
    if (pause > 0) await sleep(pause);
  }

  /**
   * Runs `callback` once the unit `manager` belongs to has committed (never if it rolls back),
   * outside the unit. With a manager of no open unit it runs at once.
   */
  afterCommit(manager: EntityManager, callback: () => void): void {
    const unit = unitOf(manager);
    if (!unit) runOutsideUnits(callback);
    else if (!unit.afterCommit.includes(callback)) unit.afterCommit.push(callback);
  }

  /**
   * A query runner with its own connection, taken within `deadline`, whose statements are bound by
   * it (MySQL: the failover pool reads the deadline of the connection). On SQLite, the one runner.
   */
  private async connected(deadline: number): Promise<QueryRunner> {
    const runner = this.dataSource.createQueryRunner('master');
    try {
      await acquireWithin(deadline, () => runner.connect());
    } catch (error) {
      await runner.release();
      throw error;
    }
    if (this.isMysql) bindDeadline(connectionOf(runner), deadline);
    return runner;
  }

  private async release(runner: QueryRunner): Promise<void> {
    if (this.isMysql) unbindDeadline(connectionOf(runner));
    await runner.release();
  }

  private async onOwnConnection<T>(
    work: (manager: EntityManager) => Promise<T>,
    deadline: number,
  ): Promise<T> {
    if (!this.isMysql) return work(this.dataSource.manager); // SQLite: each statement takes the gate
    const runner = await this.connected(deadline);
    try {
      return await holdingConnection(() => work(runner.manager));
    } finally {
      await this.release(runner);
    }
  }

  private async runOnce<T>(
    unit: UnitState,
    work: (manager: EntityManager) => Promise<T>,
    deadline: number,
  ): Promise<T> {
    let runner: QueryRunner | undefined;
    let duringCommit = false;
    try {
      runner = await this.connected(deadline); // the unit's own connection, taken before it starts
      const held = runner;
      return await runInUnit(held, unit, async () => {
        try {
          await held.startTransaction();
          const result = await work(held.manager);
          duringCommit = true;
          await held.commitTransaction();
          return result;
        } catch (error) {
          // Inside the unit: on SQLite the ROLLBACK must pass the gate this unit holds.
          if (held.isTransactionActive) await held.rollbackTransaction().catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      throw new RunFailed(error, duringCommit);
    } finally {
      unit.active = false;
      if (runner) await this.release(runner);
    }
  }
}

/** The driver connection a connected MySQL query runner holds (the failover pool's). */
const connectionOf = (runner: QueryRunner): object =>
  (runner as unknown as { databaseConnection: object }).databaseConnection;

/** Full jitter over an exponential ceiling: 15, 30, 60… ms, capped. */
function backoff(attempt: number): number {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
