/**
 * Which errors mean that a dependency is out of reach or too contended right now, not that the
 * request is wrong: the error filters answer them 503 with `Retry-After`, never 500 (contract §17).
 * The database layer provides it (`DatabaseModule`: `isDatabaseUnavailable` of `db-errors.ts`), so
 * the error path knows nothing of driver error codes.
 */
export abstract class UnavailableErrors {
  abstract matches(error: unknown): boolean;
}
