import { isIP } from 'node:net';

/**
 * Which proxies' `X-Forwarded-For` to believe (TRUST_PROXY), in Express's `trust proxy` terms:
 * `false` — none, the peer is the client (the default); a number n — the n proxies nearest to
 * us, so the client is the n-th address from the right of `X-Forwarded-For` (one load balancer
 * in front: 1); a list — the proxies at these addresses or ranges (`10.0.0.0/8`, `loopback`,
 * `linklocal`, `uniquelocal`), the client being the rightmost address not among them.
 */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 32;

/** An address, a CIDR range (`10.0.0.0/8`, `fd00::/8`) or one of Express's named ranges. */
function isTrustedEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Reads TRUST_PROXY: unset, empty or `false` → `false`; `0`–`32` → a hop count; else a
 * comma-separated list of addresses, CIDR ranges and named ranges. `true` ("trust every hop")
 * is refused: the leftmost `X-Forwarded-For` address is whatever the client wrote, so each
 * request could claim a fresh address and a fresh failed-login budget. Null when invalid.
 */
export function parseTrustProxy(text: string | undefined): TrustProxy | null {
  const value = (text ?? '').trim();
  if (value === '' || value.toLowerCase() === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value) <= MAX_HOPS ? Number(value) : null;
  const entries = value.split(',').map((e) => e.trim().toLowerCase());
  return entries.every(isTrustedEntry) ? entries : null;
}
