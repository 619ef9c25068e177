import { parentPort } from 'node:worker_threads';
import { parseJsonKeepingDecimals, TooManyValues } from './json-parse';

/** A body's text to parse, with the number its answer carries back. */
export interface ParseRequest {
  id: number;
  text: string;
}

/** The parsed value (plain objects, lists, strings, numbers: it crosses threads as a copy), or why not. */
export type ParseAnswer = { id: number; value: unknown } | { id: number; error: string; tooMany: boolean };

// The thread json-parse-thread.ts starts: parses large JSON bodies away from the event loop.
parentPort?.on('message', ({ id, text }: ParseRequest) => {
  let answer: ParseAnswer;
  try {
    answer = { id, value: parseJsonKeepingDecimals(text) };
  } catch (error) {
    answer = { id, error: (error as Error).message, tooMany: error instanceof TooManyValues };
  }
  parentPort?.postMessage(answer);
});
