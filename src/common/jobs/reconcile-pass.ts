import type { Logger } from '@nestjs/common';

/** How a reconciler pass speaks: what names an item, and its two log lines. */
export interface PassLog<T, C> {
  logger: Logger;
  /** The fields that name an item in a log line (never a secret). */
  about: (item: T) => Record<string, unknown>;
  /** Warned, with the error, for an item that could not be finished this time. */
  notYet: string;
  /** Logged with the counts when `progressed` says the pass finished something. */
  finished: string;
  progressed: (tally: C) => boolean;
}

/**
 * One pass of a reconciler over the items it found: runs `finish` on each in turn and counts what
 * each came to in `tally`. An item that throws is counted as `left` (the next pass tries it again)
 * and logged; the pass goes on with the next one.
 */
export async function reconcilePass<T, C extends { left: number }>(
  items: readonly T[],
  tally: C,
  finish: (item: T) => Promise<keyof C>,
  log: PassLog<T, C>,
): Promise<C> {
  for (const item of items) {
    try {
      const outcome = await finish(item);
      (tally as Record<keyof C, number>)[outcome]++;
    } catch (error) {
      tally.left++;
      log.logger.warn({ err: error, ...log.about(item) }, log.notYet);
    }
  }
  if (log.progressed(tally)) log.logger.log({ ...tally }, log.finished);
  return tally;
}
