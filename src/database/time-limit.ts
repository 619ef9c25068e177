/**
 * Deadlines of units of work (contract §17: a unit's whole run — waiting for its connection, each
 * statement, its retries — has one time limit), carried by what the unit holds instead of by an
 * async context (see unit-context.ts for why): the deadline of the connection being taken, while
 * the pool is asked for it, then the deadline of the connection the unit holds, for its statements.
 */

/** The deadline of the connection request being made right now (set only around a synchronous call). */
let acquiring: number | null = null;
/** The deadlines of the connections units hold (the pool's connection objects). */
const deadlines = new WeakMap<object, number>();

/**
 * Calls `connect` (which asks the pool for a connection synchronously, as TypeORM's query runners
 * do) with the wait bounded by `deadline`; returns what it returns.
 */
export function acquireWithin<T>(deadline: number, connect: () => T): T {
  const outer = acquiring;
  acquiring = deadline;
  try {
    return connect();
  } finally {
    acquiring = outer;
  }
}

/** Milliseconds left for the connection request being made (≤ 0: none), or null for no limit. */
export function acquireTimeLeft(): number | null {
  return acquiring === null ? null : acquiring - Date.now();
}

/** Binds `deadline` to the statements run on `connection` until {@link unbindDeadline}. */
export function bindDeadline(connection: object, deadline: number): void {
  deadlines.set(connection, deadline);
}

export function unbindDeadline(connection: object): void {
  deadlines.delete(connection);
}

/** Milliseconds left to the deadline of the unit holding `connection` (≤ 0: passed), or null. */
export function statementTimeLeft(connection: object): number | null {
  const deadline = deadlines.get(connection);
  return deadline === undefined ? null : deadline - Date.now();
}
