/**
 * One run at a time in this process, and a clean stop: the overlap and shutdown bookkeeping every
 * background worker needs (the expiry sweep, the reconciler, the idempotency-key sweep). Runs on
 * several replicas are the database's business (claims, conditional writes), not this.
 */
export class SingleFlight<T = void> {
  private current: Promise<T> | null = null;
  private stopping = false;

  /** True while a run is in progress. */
  get running(): boolean {
    return this.current !== null;
  }

  /** True once {@link stop} was called: a run in progress should end after its current step. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Starts `run` unless one is in progress or the flight is stopped; null when it did not start. */
  tryRun(run: () => Promise<T>): Promise<T> | null {
    if (this.current || this.stopping) return null;
    return this.start(run);
  }

  /** Waits for the run in progress (if any), then runs `run`: never beside another run. */
  async runAfter(run: () => Promise<T>): Promise<T> {
    while (this.current) await this.current.catch(() => undefined);
    return this.start(run);
  }

  /** No new runs from {@link tryRun}; resolves once the run in progress has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.current?.catch(() => undefined);
  }

  private start(run: () => Promise<T>): Promise<T> {
    const current = run().finally(() => {
      this.current = null;
    });
    this.current = current;
    return current;
  }
}
