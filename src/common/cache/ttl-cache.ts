/**
 * A small read-through cache with a time limit, per process. For reference data that changes
 * rarely and is read on every request (currencies, gateways, merchant settings): a change made on
 * this replica is seen at once (the owner deletes the key), other replicas see it within the TTL.
 */
export class TtlCache<T = unknown> {
  private readonly entries = new Map<
    string,
    { value: Promise<T>; settled: boolean; result?: T; until: number }
  >();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    return this.store(key, load());
  }

  /**
   * For code inside a DB transaction (contract §17): a fresh value already in hand, else `load`
   * (which reads through the transaction's own connection). Never waits for a load another caller
   * started, which would go through the pool.
   */
  async getLoaded(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit?.settled && hit.until > Date.now()) return hit.result as T;
    const value = await load();
    this.entries.set(key, {
      value: Promise.resolve(value),
      settled: true,
      result: value,
      until: Date.now() + this.ttlMs,
    });
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private store(key: string, value: Promise<T>): Promise<T> {
    const entry: { value: Promise<T>; settled: boolean; result?: T; until: number } = {
      value,
      settled: false,
      until: Date.now() + this.ttlMs,
    };
    this.entries.set(key, entry);
    value.then(
      (result) => {
        entry.settled = true;
        entry.result = result;
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return value;
  }
}

/** How long replicas may serve reference data another replica changed. */
export const REFERENCE_DATA_TTL_MS = 5000;
