import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DatabaseRefusedError,
  DatabaseUnavailableError,
  isConnectionLoss,
  isDatabaseUnavailable,
  isNodeNotReady,
  isRefusal,
  isRetryableConflict,
  isUnsent,
} from './db-errors';

/** A mysql2 error as the driver raises it, and as TypeORM wraps it (QueryFailedError.driverError). */
function driverError(errno: number, code: string, message = code): Error[] {
  const raw = Object.assign(new Error(message), { errno, code });
  const wrapped = Object.assign(new Error(message), { driverError: raw });
  return [raw, wrapped];
}

const NOT_READY = driverError(
  1047,
  'ER_UNKNOWN_COM_ERROR',
  'WSREP has not yet prepared node for application use',
);

describe('what a database error means (contract §17)', () => {
  it('1047 (Galera node not ready) is a node not ready, not a conflict to retry on the same node', () => {
    for (const error of NOT_READY) {
      assert.equal(isNodeNotReady(error), true);
      assert.equal(isRetryableConflict(error), false);
      assert.equal(isConnectionLoss(error), false);
      assert.equal(isRefusal(error), false);
      assert.equal(isDatabaseUnavailable(error), true, 'a 503, never a 500');
    }
  });

  it('deadlocks, lock-wait timeouts, errors during COMMIT and a busy SQLite are conflicts to retry', () => {
    for (const [errno, code] of [
      [1213, 'ER_LOCK_DEADLOCK'],
      [1205, 'ER_LOCK_WAIT_TIMEOUT'],
      [1180, 'ER_ERROR_DURING_COMMIT'],
    ] as const) {
      for (const error of driverError(errno, code)) {
        assert.equal(isRetryableConflict(error), true, code);
        assert.equal(isNodeNotReady(error), false, code);
        assert.equal(isDatabaseUnavailable(error), true, code);
      }
    }
    assert.equal(isRetryableConflict(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' })), true);
  });

  it('access denied (1044, 1045, 1698) and an unknown database (1049) are refusals: permanent', () => {
    for (const [errno, code] of [
      [1044, 'ER_DBACCESS_DENIED_ERROR'],
      [1045, 'ER_ACCESS_DENIED_ERROR'],
      [1698, 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR'],
      [1049, 'ER_BAD_DB_ERROR'],
    ] as const) {
      for (const error of driverError(errno, code)) {
        assert.equal(isRefusal(error), true, code);
        assert.equal(isRetryableConflict(error), false, code);
        assert.equal(isNodeNotReady(error), false, code);
      }
    }
    for (const error of [
      ...driverError(2003, 'ECONNREFUSED'),
      ...driverError(1062, 'ER_DUP_ENTRY'),
      ...NOT_READY,
      new DatabaseUnavailableError('none', 'no-database'),
    ]) {
      assert.equal(isRefusal(error), false, error.message);
    }
  });

  it('a refusal names DATABASE_URL as given (password masked), says retrying will not help, and has no stack trace', () => {
    const [cause] = driverError(
      1045,
      'ER_ACCESS_DENIED_ERROR',
      "Access denied for user 'checkout'@'10.0.0.5' (using password: YES)",
    );
    const error = new DatabaseRefusedError('mysql://checkout:*****@db1:3306,db2:3306/checkout', cause);
    assert.equal(
      error.message,
      "The database refused DATABASE_URL (mysql://checkout:*****@db1:3306,db2:3306/checkout): Access denied for user 'checkout'@'10.0.0.5' (using password: YES) [ER_ACCESS_DENIED_ERROR]. " +
        'Check the user, the password and the database name in DATABASE_URL (the database must exist); trying again will not help.',
    );
    assert.equal(error.stack, `DatabaseRefusedError: ${error.message}`);
    assert.equal(isRefusal(error), true);
    assert.equal(isDatabaseUnavailable(error), true, 'a request that meets it gets 503');
    assert.equal(isRetryableConflict(error), false);
  });

  it('a command refused by a closed connection was never sent; a lost one may have run', () => {
    const unsent = Object.assign(new Error("Can't add new command when connection is in closed state"), {
      fatal: true,
    });
    assert.equal(isUnsent(unsent), true);
    assert.equal(isConnectionLoss(unsent), true);
    for (const lost of [
      ...driverError(2013, 'PROTOCOL_CONNECTION_LOST', 'Connection lost: The server closed the connection.'),
      ...driverError(0, 'ECONNRESET', 'read ECONNRESET'),
    ]) {
      assert.equal(isConnectionLoss(lost), true);
      assert.equal(isUnsent(lost), false);
    }
  });
});
