import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';
import { insertedId } from './db-values';

/**
 * Hand-built single-row statements for the hottest paths (issue #13): the same SQL and the same
 * value conversions TypeORM uses (the driver's `preparePersistentValue` / `prepareHydratedValue`:
 * JSON text, UTC datetimes on SQLite, booleans, transformers), without the query builder, whose
 * per-statement work was a quarter of a create's CPU. Everything else keeps using TypeORM.
 */

/** INSERTs one row; columns left undefined take their database default. Returns the generated id. */
export async function insertRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  row: Partial<T>,
): Promise<string> {
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const columns = metadata.columns.filter((c) => c.getEntityValue(row) !== undefined);
  const params = columns.map((c): unknown => driver.preparePersistentValue(c.getEntityValue(row), c) ?? null);
  const names = columns.map((c) => driver.escape(c.databaseName)).join(', ');
  const raw: unknown = await manager.query(
    `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES (${columns.map(() => '?').join(', ')})`,
    params,
  );
  return insertedId({ raw, identifiers: [] });
}

const selects = new WeakMap<EntityMetadata, Map<string, string>>();

/** The one row whose `column` (a database column name, unique) equals `value`, as an entity. */
export async function selectOneBy<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  column: string,
  value: unknown,
): Promise<T | null> {
  const metadata = manager.connection.getMetadata(target);
  const rows: Record<string, unknown>[] = await manager.query(selectSql(manager, metadata, column), [value]);
  if (rows.length === 0) return null;
  const driver = manager.connection.driver;
  const entity = metadata.create() as T;
  for (const c of metadata.columns) {
    c.setEntityValue(entity, driver.prepareHydratedValue(rows[0][c.databaseName], c));
  }
  return entity;
}

function selectSql(manager: EntityManager, metadata: EntityMetadata, column: string): string {
  let byColumn = selects.get(metadata);
  if (!byColumn) selects.set(metadata, (byColumn = new Map<string, string>()));
  let sql = byColumn.get(column);
  if (!sql) {
    const escape = (name: string) => manager.connection.driver.escape(name);
    const names = metadata.columns.map((c) => escape(c.databaseName)).join(', ');
    sql = `SELECT ${names} FROM ${escape(metadata.tableName)} WHERE ${escape(column)} = ? LIMIT 1`;
    byColumn.set(column, sql);
  }
  return sql;
}
