import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { statement } from './single-row';

/**
 * One multi-row INSERT per call, for write paths that add hundreds of rows at once (the expiry
 * job's events and deliveries). The same values TypeORM would write — each column's value goes
 * through the driver's own conversion (JSON text, UTC datetimes on SQLite, transformers) — without
 * the query builder's per-row cost, which dominated a 500-row batch (and on MySQL without TypeORM's
 * query runner: `statement` of single-row.ts). Generated columns whose
 * value is undefined (auto-increment ids) are left out; any other undefined value is written as NULL. Keep `rows` under ~500 (SQLite binds at
 * most 32 766 values per statement).
 */
export async function bulkInsert<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: readonly Partial<T>[],
): Promise<void> {
  if (rows.length === 0) return;
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const columns = metadata.columns.filter((c) => !(c.isGenerated && rows[0][c.propertyName] === undefined));
  const marks = `(${columns.map(() => '?').join(', ')})`;
  const params: unknown[] = [];
  for (const row of rows) {
    for (const column of columns) {
      params.push(driver.preparePersistentValue(column.getEntityValue(row), column) ?? null);
    }
  }
  const names = columns.map((c) => driver.escape(c.databaseName)).join(', ');
  await statement(
    manager,
    `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES ${rows.map(() => marks).join(', ')}`,
    params,
  );
}
