import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, MigrationExecutor } from 'typeorm';
import { isNodeNotReady, isRetryableConflict } from './db-errors';
import { dateParam, isUniqueViolation } from './db-values';
import { Dialect } from './dialect';
import { withoutStatementLimit } from './failover-pool';

const LOCK_NAME = 'migrations';
/** A holder that stops renewing its lock (killed mid-migration) loses it after this long. */
const LEASE_MS = 60_000;
const WAIT_MS = 180_000;
const POLL_MS = 250;
/** DDL may wait for running transactions of other replicas (a rolling deployment). */
const MIGRATION_LOCK_WAIT_SECONDS = 300;

export interface MigrationOptions {
  /** How long to wait for another replica's migration run before giving up (ms). */
  waitMs?: number;
  log?: (message: string) => void;
}

/**
 * Applies pending migrations, one replica at a time (contract §17). The lock is a row under a unique
 * key in `schema_lock`, not `GET_LOCK`: named locks are per server, so on a Galera cluster two
 * replicas on different nodes would both migrate. The holder renews its lease while it works; a
 * holder that died is taken over once its lease ran out. The others wait, then find nothing
 * left to do. The lock is released whatever happens.
 */
export async function runMigrations(dataSource: DataSource, options: MigrationOptions = {}): Promise<void> {
  await retryConflicts(() => createLockTable(dataSource));
  const holder = `${hostname().slice(0, 32)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  await acquire(dataSource, holder, options);
  const renew = setInterval(() => {
    void dataSource
      .query(`UPDATE schema_lock SET expires_at = ? WHERE name = ? AND holder = ?`, [
        dateParam(dataSource, new Date(Date.now() + LEASE_MS)),
        LOCK_NAME,
        holder,
      ])
      .catch(() => undefined); // the next renewal tries again; the lease covers a miss
  }, LEASE_MS / 4);
  renew.unref();
  try {
    await applyPending(dataSource);
  } finally {
    clearInterval(renew);
    await retryConflicts(() =>
      dataSource.query(`DELETE FROM schema_lock WHERE name = ? AND holder = ?`, [LOCK_NAME, holder]),
    );
  }
}

async function createLockTable(dataSource: DataSource): Promise<void> {
  const dialect = Dialect.of(dataSource);
  await dataSource.query(
    `CREATE TABLE IF NOT EXISTS schema_lock (
      name varchar(64) NOT NULL PRIMARY KEY,
      holder varchar(128) NOT NULL,
      expires_at ${dialect.timestampType} NOT NULL
    )${dialect.tableOptions}`,
  );
}

/** A conflict (on Galera a concurrent write on another node), or a node not ready yet (1047). */
const retryable = (error: unknown): boolean => isRetryableConflict(error) || isNodeNotReady(error);

async function acquire(dataSource: DataSource, holder: string, options: MigrationOptions): Promise<void> {
  const deadline = Date.now() + (options.waitMs ?? WAIT_MS);
  let announced = false;
  for (;;) {
    const now = new Date();
    const expiresAt = dateParam(dataSource, new Date(now.getTime() + LEASE_MS));
    try {
      await dataSource.query(`INSERT INTO schema_lock (name, holder, expires_at) VALUES (?, ?, ?)`, [
        LOCK_NAME,
        holder,
        expiresAt,
      ]);
      return;
    } catch (error) {
      // Held by another replica (on Galera a concurrent insert on another node is a conflict).
      if (!isUniqueViolation(error) && !retryable(error)) throw error;
    }
    const takenOver = await changedRows(
      dataSource,
      `UPDATE schema_lock SET holder = ?, expires_at = ? WHERE name = ? AND expires_at < ?`,
      [holder, expiresAt, LOCK_NAME, dateParam(dataSource, now)],
    ).catch((error: unknown) => {
      if (retryable(error)) return 0;
      throw error;
    });
    if (takenOver === 1) {
      options.log?.('Took over the migration lock of a replica that stopped renewing it');
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${options.waitMs ?? WAIT_MS} ms waiting for another replica's migrations`,
      );
    }
    if (!announced) {
      options.log?.('Another replica is applying migrations: waiting for it');
      announced = true;
    }
    await sleep(POLL_MS);
  }
}

/**
 * Pending migrations, each in its own transaction, on one connection whose DDL may wait longer
 * and has no statement time limit.
 */
async function applyPending(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner('master');
  const mysql = Dialect.of(dataSource).isMysql;
  let restore: string | null = null;
  try {
    if (mysql) {
      const [row] = (await runner.query('SELECT @@SESSION.lock_wait_timeout AS t')) as {
        t: number | string;
      }[];
      restore = String(Number(row.t));
      await runner.query(`SET SESSION lock_wait_timeout = ${MIGRATION_LOCK_WAIT_SECONDS}`);
    }
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    await withoutStatementLimit(runner, () => executor.executePendingMigrations());
  } finally {
    if (restore !== null)
      await runner.query(`SET SESSION lock_wait_timeout = ${restore}`).catch(() => undefined);
    await runner.release();
  }
}

/** Runs one write and returns how many rows it changed (both dialects). */
async function changedRows(dataSource: DataSource, sql: string, parameters: unknown[]): Promise<number> {
  const runner = dataSource.createQueryRunner('master');
  try {
    return (await runner.query(sql, parameters, true)).affected ?? 0;
  } finally {
    await runner.release();
  }
}

async function retryConflicts<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!retryable(error) || attempt >= 10) throw error;
      await sleep(POLL_MS);
    }
  }
}
