import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ServiceUnavailable } from '../errors/domain-errors';

interface Waiter {
  weight: number;
  admit: (leave: () => void) => void;
  timer: NodeJS.Timeout;
}

/**
 * contract §17: a limit on the request bodies read and parsed at once, counted in bytes (a body weighs
 * its declared length, or the most it may reach) and held until its request is answered. Parsing
 * a megabyte of JSON holds the event loop ≈ 60 ms and validating it about as long again: a burst of
 * them would hold it for seconds, and every other caller with it. (Released right after parsing,
 * the gate would admit the next bodies while the last ones are still being validated: the backlog
 * would only move into the event loop, where no wait is measured.)
 *
 * Past the limit a body waits its turn (first come, first served) until `waitMs` after its request
 * arrived, then is refused with 503 + `Retry-After`: its bytes are never read. Counted from
 * arrival, not from the gate: a request that reaches the gate late (the process is behind) is
 * refused at once instead of adding its body to the backlog.
 *
 * Bytes, not bodies: the usual small bodies weigh almost nothing, so a few slow uploads cannot
 * shut them out, while a burst of large ones is held to `capacity` bytes at a time.
 */
export class BodyGate {
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly capacity: number,
    private readonly waitMs: number,
  ) {}

  /**
   * Resolves with the function that gives the bytes back (call it once the request is done with
   * its body; later calls do nothing), or rejects with {@link ServiceUnavailable} `waitMs` after
   * `arrivedAt` (a `performance.now()` time; unknown: now). A body larger than the whole capacity
   * weighs the capacity: alone, it may always be read.
   */
  enter(bytes: number, arrivedAt?: number): Promise<() => void> {
    const weight = Math.min(Math.max(1, Math.ceil(bytes)), this.capacity);
    const now = performance.now();
    const left = (Number.isFinite(arrivedAt) ? (arrivedAt as number) : now) + this.waitMs - now;
    if (left <= 0) return Promise.reject(new ServiceUnavailable());
    if (this.waiting.length === 0 && this.inFlight + weight <= this.capacity) {
      return Promise.resolve(this.take(weight));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        weight,
        admit: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new ServiceUnavailable());
          this.admitWaiting(); // those behind it may fit now
        }, left),
      };
      this.waiting.push(waiter);
    });
  }

  /**
   * Enters for the body of the request `res` answers, and gives the bytes back once it is answered
   * or its connection closed. Rejects as {@link enter} does.
   */
  async enterUntilAnswered(res: ServerResponse, bytes: number, arrivedAt?: number): Promise<void> {
    const leave = await this.enter(bytes, arrivedAt);
    if (res.writableFinished || res.destroyed) return leave();
    res.once('finish', leave);
    res.once('close', leave);
  }

  /** Bytes of bodies being read, parsed and handled now (for tests and metrics). */
  get bytesInFlight(): number {
    return this.inFlight;
  }

  private take(weight: number): () => void {
    this.inFlight += weight;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight -= weight;
      this.admitWaiting();
    };
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.inFlight + this.waiting[0].weight <= this.capacity) {
      const next = this.waiting.shift()!;
      clearTimeout(next.timer);
      next.admit(this.take(next.weight));
    }
  }
}

/**
 * contract §17, the second bound: the JSON, urlencoded and text bodies over {@link LARGE_BODY_BYTES} (a
 * create or update body is a few KB) are read, parsed and handled {@link LARGE_BODIES_AT_ONCE} at a time.
 * They pass this gate before the {@link BodyGate}, each weighing 1, and hold it until answered; past
 * it they wait (first come, first served) until `waitMs` after arrival, then 503 unread. What it
 * bounds is time on the event loop, not memory: parsing a megabyte of JSON takes 50–120 ms and
 * validating it as long again, in stretches no other request can interrupt. With eight of them at
 * once (the {@link BodyGate}'s default 8 MiB), 100 concurrent 1 MB creates held a public retrieve for
 * up to 9.5 s (docs/performance.md); one at a time, under 1 s. Requests without a body, small bodies and
 * multipart uploads (streamed to disk, not parsed) never wait for it.
 */
export class LargeBodyGate extends BodyGate {}

/** Bodies over this size pass the {@link LargeBodyGate}. */
export const LARGE_BODY_BYTES = 16 * 1024;

/** How many large bodies are read, parsed and handled at once (the {@link LargeBodyGate}'s capacity). */
export const LARGE_BODIES_AT_ONCE = 1;
