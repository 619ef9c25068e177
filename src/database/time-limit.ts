import { AsyncLocalStorage } from 'node:async_hooks';

/** A deadline for the database calls of one piece of work (a unit of work's whole run). */
interface TimeLimit {
  deadline: number;
  /** False once the work has finished: async work it left behind is not bound by it. */
  open: boolean;
}

const limits = new AsyncLocalStorage<TimeLimit>();

/**
 * Runs `work` with every database call it makes — waiting for a connection, each statement —
 * bounded by one deadline `ms` from now (contract §17: a unit of work's whole run has a time limit,
 * retries included). A limit already in force that ends sooner stays.
 */
export async function withinTimeLimit<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const outer = timeLeft();
  const limit: TimeLimit = { deadline: Date.now() + Math.min(ms, outer ?? ms), open: true };
  try {
    return await limits.run(limit, work);
  } finally {
    limit.open = false;
  }
}

/** Milliseconds left to the time limit this code runs under (≤ 0: passed), or null for none. */
export function timeLeft(): number | null {
  const limit = limits.getStore();
  return limit?.open ? limit.deadline - Date.now() : null;
}
