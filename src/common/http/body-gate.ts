import { ServiceUnavailable } from '../errors/domain-errors';

interface Waiter {
  weight: number;
  admit: (leave: () => void) => void;
  timer: NodeJS.Timeout;
}

/**
 * SPEC §17: a limit on the request bodies read and parsed at once, counted in bytes (a body weighs
 * its declared length, or the most it may reach). Reading and parsing a megabyte of JSON holds the
 * event loop for tens of milliseconds; a burst of them would hold it for seconds and every other
 * caller with it. Past the limit a body waits its turn (first come, first served) up to `waitMs`,
 * then is refused with 503 + `Retry-After`: its bytes are never read.
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
   * Resolves with the function that gives the bytes back (call it once the body is parsed or has
   * failed; later calls do nothing), or rejects with {@link ServiceUnavailable} after `waitMs`.
   * A body larger than the whole capacity weighs the capacity: alone, it may always be read.
   */
  enter(bytes: number): Promise<() => void> {
    const weight = Math.min(Math.max(1, Math.ceil(bytes)), this.capacity);
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
        }, this.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /** Bytes of bodies being read and parsed now (for tests and metrics). */
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
