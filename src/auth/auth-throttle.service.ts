import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppConfig } from '../config/app-config';

interface Window {
  failures: number;
  startedAt: number;
}

const MAX_TRACKED = 50_000;

/**
 * What failures are counted against (contract §3): the source address and the presented identity
 * together (`basic:<username>`, `api-key:<prefix>`, `bearer:metrics`), so failures from one
 * address never count against the same name used from another. A source is an IP address (no
 * space), so the first space ends it.
 */
export function failureKey(source: string, identity: string): string {
  return `${source} ${identity}`;
}

/**
 * The address a request comes from: the peer, or the `X-Forwarded-For` hop that TRUST_PROXY
 * names (Express's `trust proxy`, set from it at start-up: see config/trust-proxy.ts).
 */
export function sourceOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}

/**
 * Counts failed authentications per {@link failureKey}. The caller checks the credential FIRST
 * and asks this service only about a wrong one: past the limit within the window, a wrong
 * credential is answered 429 (until the window ends) instead of 401; a correct one is never
 * refused and clears its key's count. Kept in memory per replica: each replica throttles on its
 * own (docs/decisions.md).
 */
@Injectable()
export class AuthThrottleService {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly config: AppConfig) {}

  /**
   * Counts a wrong credential of `key`. Returns the seconds until the key's window ends when it
   * was already at the limit (answer 429 with that `Retry-After`), else 0 (answer 401).
   */
  recordFailure(key: string, now = Date.now()): number {
    const windowMs = this.config.authFailureWindowSeconds * 1000;
    const window = this.windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      this.windows.delete(key); // re-inserted last: the map stays ordered oldest first
      this.windows.set(key, { failures: 1, startedAt: now });
      if (this.windows.size > MAX_TRACKED) this.evictOldest();
      return 0;
    }
    if (window.failures >= this.config.authFailureLimit)
      return Math.max(1, Math.ceil((windowMs - (now - window.startedAt)) / 1000));
    window.failures++;
    return 0;
  }

  /** A correct credential: its key starts again from zero. */
  recordSuccess(key: string): void {
    this.windows.delete(key);
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
