import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ServiceUnavailable } from '../errors/domain-errors';
import { TooManyValues } from './json-parse';
import type { ParseAnswer, ParseRequest } from './json-parse.worker';

interface Pending {
  worker: Worker;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * contract §17: parses JSON off the event loop, in one worker thread started on first use. Parsing
 * a megabyte takes the parser 50–120 ms (lossless-json reads it character by character, to keep
 * the digits of money), and on the event loop no other request is served meanwhile; here the loop
 * only copies the text over and the value back, a few milliseconds. The value is what
 * {@link parseJsonKeepingDecimals} returns; its errors come back as the same errors (a
 * {@link TooManyValues}, or an Error with the parser's message). A worker that dies fails its
 * parses with {@link ServiceUnavailable} (503 + Retry-After) and is replaced by the next parse.
 */
export class JsonParseThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** How many documents were handed to the worker so far (for tests). */
  get parsed(): number {
    return this.nextId - 1;
  }

  parse(text: string): Promise<unknown> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      worker.postMessage({ id, text } satisfies ParseRequest);
    });
  }

  /** Stops the worker (the app's shutdown); parses still pending fail with 503. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) {
      this.failParsesOf(worker);
      await worker.terminate();
    }
  }

  private start(): Worker {
    const worker = new Worker(join(__dirname, 'json-parse.worker.js'));
    worker.unref(); // never what keeps the process alive: a pending parse has its request's socket
    worker.on('message', (answer: ParseAnswer) => {
      const pending = this.pending.get(answer.id);
      if (!pending) return;
      this.pending.delete(answer.id);
      if ('value' in answer) pending.resolve(answer.value);
      else pending.reject(answer.tooMany ? new TooManyValues() : new Error(answer.error));
    });
    const lost = () => {
      if (this.worker === worker) this.worker = null;
      this.failParsesOf(worker);
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
    return worker;
  }

  private failParsesOf(worker: Worker): void {
    for (const [id, pending] of this.pending) {
      if (pending.worker !== worker) continue;
      this.pending.delete(id);
      pending.reject(new ServiceUnavailable());
    }
  }
}
