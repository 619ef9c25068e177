import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * TypeORM's better-sqlite3 driver runs every query and every transaction on ONE connection
 * (`createQueryRunner()` always returns the same runner). Two concurrent `transaction()` calls
 * therefore nest: the second becomes a SAVEPOINT of the first, and when the first rolls back it
 * silently undoes the second, which has already answered "committed"; a plain query of another
 * request run meanwhile joins the open transaction the same way.
 *
 * This makes the connection exclusive while a transaction runs: a transaction waits for the one
 * before it, and a query from outside the running transaction waits until it ends. Code inside a
 * transaction (tracked with AsyncLocalStorage) goes straight through, so nothing deadlocks.
 */
export function serializeSqliteAccess(dataSource: DataSource): void {
  const inside = new AsyncLocalStorage<true>();
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(() => inside.run(true, work));
    tail = run.catch(() => undefined);
    return run;
  };

  const manager: EntityManager = dataSource.manager;
  const transaction = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  manager.transaction = (...args: unknown[]) =>
    inside.getStore() ? transaction(...args) : exclusive(() => transaction(...args));

  const runner: QueryRunner = dataSource.driver.createQueryRunner('master');
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  runner.query = ((...args: unknown[]) =>
    inside.getStore() ? query(...args) : exclusive(() => query(...args))) as QueryRunner['query'];
}
