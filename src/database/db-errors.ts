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
  /** 0: the statement was not sent at all, as its time limit had already passed. */
  constructor(readonly limitMs: number) {
    super(
      limitMs > 0
        ? `The database did not answer within ${limitMs} ms`
        : 'No time was left for the statement within its time limit',
    );
  }
}

/**
 * A statement refused before it was sent because its time limit (its unit's, or its retried
 * statements') had passed: nothing ran, and the work it belongs to is out of time (503).
 */
export function isOutOfTime(error: unknown): boolean {
  const cause = (error as { driverError?: unknown } | null)?.driverError ?? error;
  return cause instanceof StatementTimeoutError && cause.limitMs === 0;
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
 * lock wait timeout, 1180 error during COMMIT; SQLite's busy database. (1047, a Galera node not
 * ready, is {@link isNodeNotReady}: the node is set aside, not merely retried.)
 */
const RETRYABLE_ERRNOS = new Set([1213, 1205, 1180]);

export function isRetryableConflict(error: unknown): boolean {
  const { code, errno } = codeOf(error);
  return (typeof errno === 'number' && RETRYABLE_ERRNOS.has(errno)) || code === 'SQLITE_BUSY';
}

/**
 * 1047 "WSREP has not yet prepared node for application use": a Galera node that is not ready
 * (joining, rejoining, outside the primary component, or told to reject queries) refused the
 * statement before running it — COMMIT included, so nothing was written. Like a node that is
 * down: the pool sets it aside and the statement or unit runs again on another node (or on this
 * one once it is ready again).
 */
export function isNodeNotReady(error: unknown): boolean {
  return codeOf(error).errno === 1047;
}

/**
 * The server refused the credentials or the database of `DATABASE_URL`: 1045 access denied, 1044
 * access to the database denied, 1698 access denied without a password (a `unix_socket` user over
 * TCP), 1049 unknown database. Permanent: trying again does not help.
 */
const REFUSED_ERRNOS = new Set([1044, 1045, 1049, 1698]);

export function isRefusal(error: unknown): boolean {
  const { errno } = codeOf(error);
  return (typeof errno === 'number' && REFUSED_ERRNOS.has(errno)) || error instanceof DatabaseRefusedError;
}

/**
 * Every server of `DATABASE_URL` refused its credentials or database ({@link isRefusal}): a start
 * (or a script) fails at once saying so; a request gets 503. The message names the URL without its
 * password; there is no stack trace worth printing (it is configuration, not a bug).
 */
export class DatabaseRefusedError extends Error {
  readonly code = 'DB_REFUSED';
  readonly errno: unknown;
  constructor(
    /** `DATABASE_URL` with its password masked. */
    readonly url: string,
    reason: unknown,
  ) {
    const { code, errno } = codeOf(reason);
    const what = reason instanceof Error ? reason.message : String(reason);
    super(
      `The database refused DATABASE_URL (${url}): ${what}${typeof code === 'string' && !what.includes(code) ? ` [${code}]` : ''}. ` +
        'Check the user, the password and the database name in DATABASE_URL (the database must exist); trying again will not help.',
    );
    this.name = 'DatabaseRefusedError';
    this.errno = errno;
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * A connection closed before the command was sent (mysql2 refuses to queue it): the server never
 * saw it — at COMMIT, the transaction was not committed (its connection is gone, so it rolled back).
 */
export function isUnsent(error: unknown): boolean {
  return (
    error instanceof Error && /Can't add new command when connection is in closed state/.test(error.message)
  );
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
  return (
    error instanceof DatabaseUnavailableError ||
    error instanceof DatabaseRefusedError ||
    isRetryableConflict(error) ||
    isNodeNotReady(error) ||
    isConnectionLoss(error)
  );
}
