import type { DataSource, EntityManager } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';

/**
 * A Date as a bound parameter of a hand-written query: mysql2 takes Date objects (the pool runs
 * in UTC), better-sqlite3 does not, so SQLite gets TypeORM's own UTC datetime text — the same
 * text it writes for entity columns, so comparisons stay consistent.
 */
export function dateParam(db: DataSource | EntityManager, date: Date): Date | string {
  const type: string = 'connection' in db ? db.connection.options.type : db.options.type;
  return type === 'mysql' ? date : (DateUtils.mixedDateToUtcDatetimeString(date) as string);
}

/** True when the error is a unique-key violation (MySQL ER_DUP_ENTRY or SQLite UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
  const code = e?.driverError?.code ?? e?.code;
  const errno = e?.driverError?.errno ?? e?.errno;
  return (
    code === 'ER_DUP_ENTRY' ||
    errno === 1062 ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** The name of the unique key a violation hit, when the driver says it. */
export function violatedKey(error: unknown): string {
  const e = error as { message?: string; driverError?: { message?: string } };
  return String(e?.driverError?.message ?? e?.message ?? '');
}

/**
 * The generated id of a one-row INSERT run with `updateEntity(false)`: mysql2 reports
 * `{ insertId }`, better-sqlite3 the bare `lastInsertRowid`.
 */
export function insertedId(result: { raw: unknown; identifiers: Record<string, unknown>[] }): string {
  const raw = result.raw as { insertId?: number | string } | number | bigint | undefined;
  const id: unknown =
    typeof raw === 'number' || typeof raw === 'bigint' ? raw : (raw?.insertId ?? result.identifiers[0]?.id);
  if (typeof id !== 'number' && typeof id !== 'string' && typeof id !== 'bigint') {
    throw new Error('The database did not report the inserted id');
  }
  return String(id);
}
