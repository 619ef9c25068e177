import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';

interface Window {
  failures: number;
  startedAt: number;
}

const MAX_TRACKED = 50_000;

/**
 * Counts failed authentications per client address and per presented identity (username or key
 * prefix); past the limit within the window, further attempts get 429 until the window ends.
 * Kept in memory per replica: each replica throttles on its own (documented in docs/decisions.md).
 */
@Injectable()
export class AuthThrottleService {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly config: AppConfig) {}

  /** Seconds to wait when any of the keys is over the limit, else 0. */
  retryAfter(keys: string[], now = Date.now()): number {
    const windowMs = this.config.authFailureWindowSeconds * 1000;
    let wait = 0;
    for (const key of keys) {
      const window = this.windows.get(key);
      if (!window) continue;
      const elapsed = now - window.startedAt;
      if (elapsed >= windowMs) this.windows.delete(key);
      else if (window.failures >= this.config.authFailureLimit)
        wait = Math.max(wait, Math.ceil((windowMs - elapsed) / 1000));
    }
    return wait;
  }

  recordFailure(keys: string[], now = Date.now()): void {
    const windowMs = this.config.authFailureWindowSeconds * 1000;
    for (const key of keys) {
      const window = this.windows.get(key);
      if (!window || now - window.startedAt >= windowMs)
        this.windows.set(key, { failures: 1, startedAt: now });
      else window.failures++;
    }
    if (this.windows.size > MAX_TRACKED) this.evictOldest();
  }

  recordSuccess(identityKey: string): void {
    this.windows.delete(identityKey);
  }

  private evictOldest(): void {
    const excess = this.windows.size - MAX_TRACKED;
    let removed = 0;
    for (const key of this.windows.keys()) {
      if (removed++ >= excess) break;
      this.windows.delete(key);
    }
  }
}
