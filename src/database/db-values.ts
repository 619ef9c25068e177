import type { DataSource, EntityManager } from 'typeorm';
import { Dialect } from './dialect';

/** A Date as a bound parameter of a hand-written query ({@link Dialect.dateParam}). */
export function dateParam(db: DataSource | EntityManager, date: Date): Date | string {
  return Dialect.of(db).dateParam(date);
}

/**
 * A DATETIME read by a raw query (an aggregate, say): mysql2 gives a Date (the pool runs in UTC),
 * better-sqlite3 the UTC text TypeORM stored (`YYYY-MM-DD HH:MM:SS.mmm`).
 */
export function rawDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value !== 'string') throw new Error(`Not a stored datetime: ${typeof value}`);
  const text = value;
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
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

/**
 * True when the database gave up on a lock: MySQL/MariaDB deadlock (1213) or lock wait timeout
 * (1205), SQLite busy. Racing writers of the same rows hit these; the loser may retry or yield.
 */
export function isLockConflict(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
  const errno = e?.driverError?.errno ?? e?.errno;
  const code = e?.driverError?.code ?? e?.code;
  return errno === 1213 || errno === 1205 || code === 'SQLITE_BUSY';
}
