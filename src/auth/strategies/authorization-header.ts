import type { StrategyCreated, StrategyCreatedStatic } from 'passport';
import type { AuthScheme, Principal } from '../principal';

/**
 * `Authorization: <scheme> <credentials>` as RFC 9110 §11 reads it: the scheme name is
 * case-insensitive and separated by one or more spaces. Used by the guard (which strategy) and by
 * both strategies (what credentials), so they always agree.
 */
export interface AuthorizationHeader {
  /** Lower-case scheme name, e.g. `basic`, `api-key`. */
  scheme: string;
  /** The credentials after the scheme, trimmed ('' when none). */
  credentials: string;
}

export function parseAuthorization(header: string | undefined): AuthorizationHeader | null {
  const match = /^\s*(\S+)(?:\s+([\s\S]*))?$/.exec(header ?? '');
  if (!match) return null;
  return { scheme: match[1].toLowerCase(), credentials: (match[2] ?? '').trim() };
}

/** The scheme this service knows, or null (no credentials as far as we are concerned). */
export function knownScheme(header: AuthorizationHeader | null): AuthScheme | null {
  if (header?.scheme === 'api-key') return 'api-key';
  if (header?.scheme === 'basic') return 'basic';
  return null;
}

/**
 * RFC 7617 user-pass: base64 of `user-id ":" password`, split at the FIRST colon (a password may
 * hold colons, a user-id may not). Null when malformed or either part is empty.
 */
export function basicCredentials(token: string): { username: string; password: string } | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return null;
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Ends a strategy's `authenticate` with the outcome of its `validate`. */
export function settle(strategy: StrategyCreatedStatic, outcome: Promise<Principal | false>): void {
  outcome.then(
    (principal) => (principal ? strategy.success(principal) : strategy.fail(401)),
    (error: unknown) => strategy.error(error instanceof Error ? error : new Error(String(error))),
  );
}

export type { StrategyCreated };
