/**
 * What a database error means for the request that met it (contract §17): a conflict to retry, a
 * database out of reach (503), or neither (a bug or a rule: handled where it arises).
 */

/** No connection could be had in time: every server down, or every connection busy. */
export class DatabaseUnavailableError extends Error {
  readonly code = 'DB_UNAVAILABLE';
  constructor(
    message: string,
    /** `no-database`: no server of the list answers; `pool-exhausted`: all connections stayed busy. */
    readonly reason: 'no-database' | 'pool-exhausted',
  ) {
    super(message);
  }
}

/**
 * A statement got no answer within its time limit (`DB_QUERY_TIMEOUT_MS`, or what was left of its
 * unit of work's): its connection was cut, so whether it ran is unknown — like a lost connection.
 */
export class StatementTimeoutError extends Error {
  readonly code = 'DB_STATEMENT_TIMEOUT';
  /** mysql2 closes a connection after a fatal error instead of handing it out again. */
  readonly fatal = true;
  constructor(limitMs: number) {
    super(
      limitMs > 0
        ? `The database did not answer within ${limitMs} ms`
        : 'No time was left for the statement within its time limit',
    );
  }
}

interface DriverError {
  code?: unknown;
  errno?: unknown;
  driverError?: { code?: unknown; errno?: unknown };
}

function codeOf(error: unknown): { code: unknown; errno: unknown } {
  const e = (error ?? {}) as DriverError;
  return { code: e.driverError?.code ?? e.code, errno: e.driverError?.errno ?? e.errno };
}

/**
 * MySQL/MariaDB errors after which the whole unit of work may simply run again in a fresh
 * transaction: 1213 deadlock (on Galera also a certification conflict, often at COMMIT), 1205
 * lock wait timeout, 1047 Galera node not ready (at COMMIT: not committed), 1180 error during
 * COMMIT; SQLite's busy database.
 */
const RETRYABLE_ERRNOS = new Set([1213, 1205, 1047, 1180]);

export function isRetryableConflict(error: unknown): boolean {
  const { code, errno } = codeOf(error);
  return (typeof errno === 'number' && RETRYABLE_ERRNOS.has(errno)) || code === 'SQLITE_BUSY';
}

/** Network-level failures: the server is gone or unreachable, not merely busy. */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
]);

/** The connection or the server went away, or did not answer in time (the statement's outcome may be unknown). */
const CONNECTION_LOST_CODES = new Set([
  ...NETWORK_ERROR_CODES,
  'DB_STATEMENT_TIMEOUT',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
]);
/** 1053 server shutdown, 2002/2003 cannot connect, 2006 server gone, 2013 lost during query. */
const CONNECTION_LOST_ERRNOS = new Set([1053, 2002, 2003, 2006, 2013]);

export function isConnectionLoss(error: unknown): boolean {
  const { code, errno } = codeOf(error);
  return (
    (typeof code === 'string' && CONNECTION_LOST_CODES.has(code)) ||
    (typeof errno === 'number' && CONNECTION_LOST_ERRNOS.has(errno)) ||
    (error instanceof Error && /Pool is closed|connection is in closed state/i.test(error.message))
  );
}

/**
 * True when the request failed because the database is out of reach or too contended right now,
 * not because of the request: answered 503 with `Retry-After`, never 500 (contract §17).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return error instanceof DatabaseUnavailableError || isRetryableConflict(error) || isConnectionLoss(error);
}
