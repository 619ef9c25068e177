import type { DataSource, EntityManager } from 'typeorm';

/**
 * Embedded SQLite runs on ONE connection: two `dataSource.transaction(...)` calls that overlap in
 * time would both send BEGIN on it ("cannot start a transaction within a transaction"). This queues
 * them in-process, one after another (a transaction on SQLite locks the whole database anyway).
 * MySQL has a pool and row locks, so it is left alone.
 */
export function serializeTransactions(dataSource: DataSource): void {
  if (dataSource.options.type === 'mysql') return;
  const manager: EntityManager = dataSource.manager;
  const original = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  let tail: Promise<unknown> = Promise.resolve();
  (manager as { transaction: unknown }).transaction = (...args: unknown[]): Promise<unknown> => {
    const run = tail.then(() => original(...args));
    tail = run.catch(() => undefined);
    return run;
  };
}
