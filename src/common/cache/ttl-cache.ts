/**
 * A small read-through cache with a time limit, per process. For reference data that changes
 * rarely and is read on every request (currencies, gateways, merchant settings): a change made on
 * this replica is seen at once (the owner deletes the key), other replicas see it within the TTL.
 */
export class TtlCache<T = unknown> {
  private readonly entries = new Map<string, { value: Promise<T>; until: number }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = load();
    this.entries.set(key, { value, until: now + this.ttlMs });
    value.catch(() => this.entries.delete(key));
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** How long replicas may serve reference data another replica changed. */
export const REFERENCE_DATA_TTL_MS = 5000;
