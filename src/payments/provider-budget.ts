/**
 * How long the provider calls of one request may take together (contract §17: every request answered
 * within 10 s; §20.1: calls made while a customer or a merchant waits share one deadline). The rest
 * of the 10 s is for the database and the answer.
 */
export const PROVIDER_BUDGET_MS = 8000;

/** The deadline (epoch ms) of the provider calls of a request starting now. */
export function providerDeadline(now: number = Date.now()): number {
  return now + PROVIDER_BUDGET_MS;
}
