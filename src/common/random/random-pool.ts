import { randomBytes, randomFillSync } from 'node:crypto';

/** Bytes read from the operating system's CSPRNG at a time. */
const POOL_BYTES = 4096;
/** Larger requests are not worth pooling: they read the CSPRNG directly. */
const LARGEST_POOLED = 256;

const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES; // empty: filled on first use

/**
 * Random identifiers from the operating system's CSPRNG, the same bytes `crypto.randomBytes` gives,
 * read 4 KB at a time instead of once per identifier. On these machines one `randomBytes(20)` (a
 * `getrandom` call) cost 12–20 µs, a create's session id among them; Node's own
 * `randomUUID` keeps a cache the same way. Each byte is handed out once, then overwritten by the next
 * fill; processes never share the pool (workers are spawned, not forked copies).
 */
function take(size: number): { buffer: Buffer; start: number; end: number } {
  if (!Number.isInteger(size) || size <= 0) throw new RangeError(`Invalid random size: ${size}`);
  if (size > LARGEST_POOLED) return { buffer: randomBytes(size), start: 0, end: size };
  if (used + size > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const start = used;
  used += size;
  return { buffer: pool, start, end: used };
}

/** `size` random bytes as 2 × `size` lowercase hex characters (`randomBytes(size).toString('hex')`). */
export function randomHex(size: number): string {
  const { buffer, start, end } = take(size);
  return buffer.toString('hex', start, end);
}

/** `size` random bytes in base64url without padding (`randomBytes(size).toString('base64url')`). */
export function randomBase64url(size: number): string {
  const { buffer, start, end } = take(size);
  return buffer.toString('base64url', start, end);
}
