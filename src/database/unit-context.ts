import { AsyncLocalStorage } from 'node:async_hooks';

/** The unit of work a piece of code runs in (see UnitOfWork). */
export interface UnitState {
  /** False once the unit has committed or rolled back (async work it left behind is outside). */
  active: boolean;
  /** Run once the unit has committed, outside its context. */
  afterCommit: (() => void)[];
}

const units = new AsyncLocalStorage<UnitState>();

/** The unit of work this code runs in, if one is still open. */
export function currentUnit(): UnitState | undefined {
  const unit = units.getStore();
  return unit?.active ? unit : undefined;
}

export function runInUnit<T>(unit: UnitState, work: () => Promise<T>): Promise<T> {
  return units.run(unit, work);
}

/** Runs `work` outside any unit (after-commit callbacks must not inherit the committed unit). */
export function runOutsideUnits(work: () => void): void {
  units.exit(work);
}

/** Thrown when code inside a unit of work asks the pool for a second connection. */
export class PoolReadInsideUnitError extends Error {
  constructor() {
    super(
      "A pooled connection was requested inside a unit of work: read through the unit's manager, or before the unit starts (contract §17)",
    );
  }
}

/**
 * contract §17: no code holds a pooled connection while it waits for another. A unit that did so
 * could deadlock the pool (every connection held by a unit waiting for one more), so the pool
 * refuses such a request outright, and the tests find every path that would.
 */
export function assertOutsideUnit(): void {
  if (currentUnit()) throw new PoolReadInsideUnitError();
}
