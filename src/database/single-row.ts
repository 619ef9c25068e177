import { QueryFailedError, type EntityManager, type EntityTarget, type ObjectLiteral } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';
import { insertedId } from './db-values';

/**
 * Hand-built single-row statements for the hottest paths (docs/performance.md): the same SQL and the same
 * value conversions TypeORM uses (the driver's `preparePersistentValue` / `prepareHydratedValue`:
 * JSON text, UTC datetimes on SQLite, booleans, transformers), without the query builder, whose
 * per-statement work was a quarter of a create's CPU. Everything else keeps using TypeORM.
 *
 * On MySQL/MariaDB the statements also skip TypeORM's query runner (docs/performance.md): they run on the
 * mysql2 connection the failover pool handed out — the unit of work's, or one taken from the pool
 * for the statement and given back — through the pool's own `query` wrapper, so the statement
 * time limit, the health and failover handling and the one-connection-per-unit rule
 * (`assertOutsideUnit`) all hold as before. Their results are the ones `manager.query` gives there
 * (the rows; mysql2's `ResultSetHeader` for an INSERT), their failures the same
 * {@link QueryFailedError} around the same driver error. SQLite keeps `manager.query`.
 */

/** What one entity's statements need, worked out once. */
interface Plan {
  columns: readonly ColumnMetadata[];
  /**
   * The property each column is read from and written to when that is all `getEntityValue` /
   * `setEntityValue` do (no embedded, no relation): null for the others, which go through them.
   */
  properties: readonly (string | null)[];
  /** The escaped table and column names. */
  table: string;
  names: readonly string[];
  /** INSERT text by the set of columns given a value (a bitmap; a list when there are > 31). */
  inserts: Map<number | string, string>;
  /** SELECT text by the column it looks a row up by. */
  selects: Map<string, string>;
}

const plans = new WeakMap<EntityMetadata, Plan>();

function planOf(manager: EntityManager, metadata: EntityMetadata): Plan {
  let plan = plans.get(metadata);
  if (!plan) {
    const driver = manager.connection.driver;
    const columns = metadata.columns;
    plan = {
      columns,
      properties: columns.map((c) => (c.embeddedMetadata || c.referencedColumn ? null : c.propertyName)),
      table: driver.escape(metadata.tableName),
      names: columns.map((c) => driver.escape(c.databaseName)),
      inserts: new Map(),
      selects: new Map(),
    };
    plans.set(metadata, plan);
  }
  return plan;
}

/** INSERTs one row; columns left undefined take their database default. Returns the generated id. */
export async function insertRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  row: Partial<T>,
): Promise<string> {
  const plan = planOf(manager, manager.connection.getMetadata(target));
  const driver = manager.connection.driver;
  const { columns, properties } = plan;
  const source = row as Record<string, unknown>;
  const params: unknown[] = [];
  const present: number[] = [];
  let mask = 0;
  for (let i = 0; i < columns.length; i++) {
    const property = properties[i];
    const value: unknown = property === null ? columns[i].getEntityValue(row) : source[property];
    if (value === undefined) continue;
    params.push(driver.preparePersistentValue(value, columns[i]) ?? null);
    present.push(i);
    if (i < 31) mask |= 1 << i;
  }
  const key = columns.length > 31 ? present.join(',') : mask;
  let sql = plan.inserts.get(key);
  if (sql === undefined) {
    sql =
      `INSERT INTO ${plan.table} (${present.map((i) => plan.names[i]).join(', ')}) ` +
      `VALUES (${present.map(() => '?').join(', ')})`;
    plan.inserts.set(key, sql);
  }
  const raw = await statement(manager, sql, params);
  return insertedId({ raw, identifiers: [] });
}

/** The one row whose `column` (a database column name, unique) equals `value`, as an entity. */
export async function selectOneBy<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  column: string,
  value: unknown,
): Promise<T | null> {
  const metadata = manager.connection.getMetadata(target);
  const plan = planOf(manager, metadata);
  let sql = plan.selects.get(column);
  if (sql === undefined) {
    const escaped = manager.connection.driver.escape(column);
    sql = `SELECT ${plan.names.join(', ')} FROM ${plan.table} WHERE ${escaped} = ? LIMIT 1`;
    plan.selects.set(column, sql);
  }
  const rows = (await statement(manager, sql, [value])) as Record<string, unknown>[];
  if (rows.length === 0) return null;
  const driver = manager.connection.driver;
  const entity = metadata.create() as T;
  const fields = entity as Record<string, unknown>;
  const { columns, properties } = plan;
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i];
    const hydrated: unknown = driver.prepareHydratedValue(rows[0][c.databaseName], c);
    const property = properties[i];
    if (property === null) c.setEntityValue(entity, hydrated);
    else fields[property] = hydrated;
  }
  return entity;
}

/** mysql2's connection, as the failover pool hands it out (its `query` time-limited). */
interface MysqlConnection {
  query(sql: string, values: unknown[], callback: (error: Error | null, result?: unknown) => void): unknown;
  release(): void;
  listeners(event: 'error'): unknown[];
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The pool TypeORM's MySQL driver took from `createPool` (a FailoverPool, or mysql2's own). */
interface MysqlPool {
  getConnection(callback: (error: Error | null, connection?: MysqlConnection) => void): void;
}

/**
 * Runs one statement as `manager.query(sql, params)` would, with the same result and the same
 * {@link QueryFailedError}: on MySQL straight on the mysql2 connection (the manager's query
 * runner's, inside a unit of work; else one from the pool for this statement alone). Used by
 * insertRow and selectOneBy, and by the other hand-built statements of the hot paths (the
 * multi-row INSERTs, the deliveries' UPDATE).
 */
export async function statement(manager: EntityManager, sql: string, params: unknown[]): Promise<unknown> {
  if (manager.connection.options.type !== 'mysql') return manager.query(sql, params);
  const runner = manager.queryRunner;
  if (runner) {
    const connection = (runner as unknown as { databaseConnection?: MysqlConnection }).databaseConnection;
    // Not connected yet, or released: TypeORM connects it, or fails as it always has.
    if (!connection || runner.isReleased) return manager.query(sql, params);
    return queryOn(connection, sql, params);
  }
  const pool = (manager.connection.driver as MysqlDriver).pool as MysqlPool | undefined;
  if (!pool) return manager.query(sql, params); // a pool cluster (replication): not used here
  // Failing to get a connection is not a QueryFailedError (TypeORM's `connect()` neither).
  const connection = await acquire(manager, pool);
  try {
    return await queryOn(connection, sql, params);
  } finally {
    connection.release();
  }
}

async function queryOn(connection: MysqlConnection, sql: string, params: unknown[]): Promise<unknown> {
  try {
    return await new Promise<unknown>((resolve, reject) => {
      connection.query(sql, params, (error, result) => (error ? reject(error) : resolve(result)));
    });
  } catch (error) {
    throw new QueryFailedError(sql, params, error as Error);
  }
}

/** A connection from the pool, as TypeORM's `obtainMasterConnection` gets one. */
function acquire(manager: EntityManager, pool: MysqlPool): Promise<MysqlConnection> {
  return new Promise((resolve, reject) => {
    pool.getConnection((error, connection) => {
      if (error || !connection) {
        reject(error ?? new Error('The pool gave no connection'));
        return;
      }
      // TypeORM's `prepareDbConnection`: a connection error must not go unhandled (the failover
      // pool adds its own listener; a plain mysql2 pool does not).
      if (connection.listeners('error').length === 0) {
        const logger = manager.connection.logger;
        connection.on('error', (e) => {
          logger.log('warn', `MySQL connection raised an error. ${String(e)}`);
        });
      }
      resolve(connection);
    });
  });
}
