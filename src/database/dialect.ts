import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';

type Db = DataSource | EntityManager | QueryRunner;

/**
 * Where SQL really differs between MySQL/MariaDB and the embedded SQLite, in one place:
 * everything else is dialect-neutral TypeORM. Get one with {@link Dialect.of} from
 * whatever the caller holds, or inject it (DatabaseModule provides the data source's).
 */
export class Dialect {
  private static readonly MYSQL = new Dialect('mysql');
  private static readonly SQLITE = new Dialect('sqlite');

  private constructor(readonly kind: 'mysql' | 'sqlite') {}

  static of(db: Db): Dialect {
    const source = 'connection' in db ? db.connection : db;
    return source.options.type === 'mysql' ? Dialect.MYSQL : Dialect.SQLITE;
  }

  get isMysql(): boolean {
    return this.kind === 'mysql';
  }

  /**
   * A Date as a bound parameter of a hand-written query: mysql2 takes Date objects (the pool runs
   * in UTC), better-sqlite3 does not, so SQLite gets TypeORM's own UTC datetime text — the same
   * text it writes for entity columns, so comparisons stay consistent.
   */
  dateParam(date: Date): Date | string {
    return this.isMysql ? date : (DateUtils.mixedDateToUtcDatetimeString(date) as string);
  }

  /** An index hint after a table name (MySQL only: SQLite's planner picks it by itself). */
  forceIndex(index: string): string {
    return this.isMysql ? ` FORCE INDEX (${index})` : '';
  }

  /**
   * Row locks for a claiming SELECT: MySQL locks the rows until the transaction ends and skips
   * those another writer holds; SQLite has a single writer and no row locks.
   */
  get skipLocked(): string {
    return this.isMysql ? ' FOR UPDATE SKIP LOCKED' : '';
  }

  /** The timestamp column type of hand-written DDL (milliseconds on MySQL). */
  get timestampType(): string {
    return this.isMysql ? 'datetime(3)' : 'datetime';
  }

  /** Table options of hand-written DDL: InnoDB and case-sensitive utf8mb4 on MySQL. */
  get tableOptions(): string {
    return this.isMysql ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
  }

  /**
   * Adds one to an integer column of the row `id` and reads the new value back in the same
   * statement (MySQL: `LAST_INSERT_ID(expr)`; SQLite: `RETURNING`). Null when there is no row.
   * The UPDATE locks the row until commit, so two callers never get the same number.
   */
  async increment(manager: EntityManager, table: string, column: string, id: string): Promise<number | null> {
    if (this.isMysql) {
      const result = await manager.query<{ insertId: number | string; affectedRows: number }>(
        `UPDATE ${table} SET ${column} = LAST_INSERT_ID(${column} + 1) WHERE id = ?`,
        [id],
      );
      return result.affectedRows === 1 ? Number(result.insertId) : null;
    }
    const rows = await manager.query<Record<string, number | string>[]>(
      `UPDATE ${table} SET ${column} = ${column} + 1 WHERE id = ? RETURNING ${column}`,
      [id],
    );
    return rows.length ? Number(rows[0][column]) : null;
  }
}
