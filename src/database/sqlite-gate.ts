import type { AfterQueryEvent, BeforeQueryEvent, EntitySubscriberInterface } from 'typeorm';
import { DatabaseUnavailableError } from './db-errors';
import { insideUnit } from './unit-context';

/**
 * Turns on the embedded SQLite database's single connection. TypeORM's better-sqlite3 driver runs
 * every query and every transaction on ONE connection, so an open transaction would swallow any
 * query another request sends meanwhile (and a rollback would undo it), and two transactions
 * would nest. The gate hands out turns in arrival order: a unit of work holds it from BEGIN to
 * COMMIT; a query outside any unit holds it for that one statement (TypeORM's before/after-query
 * events, which it awaits — no patching of TypeORM). Code inside the unit that holds the gate
 * goes straight through. A wait longer than the acquire timeout fails with 503, never hangs.
 */
export class SqliteGate implements EntitySubscriberInterface {
  private tail: Promise<void> = Promise.resolve();
  /** Callers holding or waiting for a turn (for the pool metrics: 1 holds it, the rest wait). */
  private queued = 0;
  /** The turns held by single statements, keyed by the statement's parameter array. */
  private readonly statements = new WeakMap<object, () => void>();

  constructor(private readonly acquireTimeoutMs: number) {}

  /** Runs `work` with the gate held. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  beforeQuery(event: BeforeQueryEvent): Promise<void> | void {
    if (insideUnit()) return; // the unit this query belongs to holds the gate
    const key = event.parameters;
    if (typeof key !== 'object' || key === null) {
      throw new Error('SqliteGate: a query without a parameter array cannot take a turn');
    }
    return this.acquire().then((release) => {
      this.statements.set(key, release);
    });
  }

  afterQuery(event: AfterQueryEvent): void {
    const key = event.parameters;
    if (typeof key !== 'object' || key === null) return;
    const release = this.statements.get(key);
    if (!release) return;
    this.statements.delete(key);
    release();
  }

  /** The gate as a pool of one connection: whether it is held, and how many wait for it. */
  usage(): { inUse: number; waiting: number } {
    return { inUse: Math.min(this.queued, 1), waiting: Math.max(this.queued - 1, 0) };
  }

  /** Waits for this caller's turn (first come, first served); resolves with its release. */
  private acquire(): Promise<() => void> {
    let passOn!: () => void;
    const turn = new Promise<void>((resolve) => (passOn = resolve));
    this.queued++;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.queued--;
      passOn();
    };
    const previous = this.tail;
    this.tail = previous.then(() => turn);
    return new Promise((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        reject(
          new DatabaseUnavailableError(
            `The embedded database stayed busy for ${this.acquireTimeoutMs} ms`,
            'pool-exhausted',
          ),
        );
      }, this.acquireTimeoutMs);
      void previous.then(() => {
        clearTimeout(timer);
        if (timedOut)
          release(); // gave up waiting: pass the turn on at once
        else resolve(release);
      });
    });
  }
}
