import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager, QueryRunner } from 'typeorm';

/** The unit of work a piece of code runs in (see UnitOfWork). */
export interface UnitState {
  /** False once the unit has committed or rolled back (async work it left behind is outside). */
  active: boolean;
  /** Run once the unit has committed, outside its context. */
  afterCommit: (() => void)[];
}

/**
 * Which unit a statement belongs to. On MySQL each unit runs on a query runner of its own (its own
 * connection), and the code inside it passes that runner's manager down (the straight-line write path), so the manager
 * names the unit: no AsyncLocalStorage. Node 20 runs AsyncLocalStorage's promise hooks for EVERY
 * promise of the process once one store is in use — a fifth of a create's CPU
 * (docs/performance.md, "Against the floor") — so production MySQL never turns it on.
 *
 * The embedded SQLite database has one connection and TypeORM ONE query runner for everything, so
 * there only the async context can tell a statement of the open unit from another request's
 * (SqliteGate): the context is tracked there. `DB_UNIT_CHECKS=true` (the test runner sets it) tracks
 * it on MySQL too, for the checks that catch code asking the pool for a second connection inside a
 * unit, or opening a unit inside another (assertOutsideUnit, insideUnit).
 */
const byRunner = new WeakMap<QueryRunner, UnitState>();
let context: AsyncLocalStorage<UnitState> | null =
  process.env.DB_UNIT_CHECKS === 'true' ? new AsyncLocalStorage<UnitState>() : null;
/** Whether the unit of a manager is found by the async context (SQLite) rather than by its runner. */
let byContext = false;

/** The embedded database: one runner for all, so units are told apart by their async context. */
export function trackUnitsByContext(): void {
  context ??= new AsyncLocalStorage<UnitState>();
  byContext = true;
}

/** Runs `work` as `unit` on `runner` (the connection the unit holds). */
export function runInUnit<T>(runner: QueryRunner, unit: UnitState, work: () => Promise<T>): Promise<T> {
  byRunner.set(runner, unit);
  return context ? context.run(unit, work) : work();
}

/**
 * Runs `work`, which holds a pooled connection outside any unit (UnitOfWork.retrying), so that where the
 * context is tracked a request for a second connection is refused as inside a unit.
 */
export function holdingConnection<T>(work: () => Promise<T>): Promise<T> {
  return context ? context.run({ active: true, afterCommit: [] }, work) : work();
}

/**
 * The open unit of work `manager` writes in, if any: where {@link UnitOfWork.afterCommit} files its
 * callbacks. A manager of no unit (the data source's own) has none.
 */
export function unitOf(manager: EntityManager): UnitState | undefined {
  const unit = byContext ? context?.getStore() : manager.queryRunner && byRunner.get(manager.queryRunner);
  return unit?.active ? unit : undefined;
}

/**
 * Whether this code runs inside an open unit, by its async context: known only where the context is
 * tracked (SQLite, DB_UNIT_CHECKS); false elsewhere.
 */
export function insideUnit(): boolean {
  return context?.getStore()?.active === true;
}

/** Runs `work` outside any unit (after-commit callbacks must not inherit the committed unit). */
export function runOutsideUnits(work: () => void): void {
  if (context) context.exit(work);
  else work();
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
 * could deadlock the pool (every connection held by a unit waiting for one more), so where the
 * context is tracked (the test suite: DB_UNIT_CHECKS) the pool refuses such a request outright, and
 * the tests find every path that would.
 */
export function assertOutsideUnit(): void {
  if (insideUnit()) throw new PoolReadInsideUnitError();
}
