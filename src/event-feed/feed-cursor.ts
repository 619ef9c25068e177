/**
 * The events feed's cursor (contract §18): opaque to merchants, base64url of `feed.<position>` — the
 * feed position of the last event they saw (0: before the first).
 */
export function encodeFeedCursor(position: bigint): string {
  return Buffer.from(`feed.${position}`, 'utf8').toString('base64url');
}

/** The position a cursor stands for, or null when it is not one this service made. */
export function decodeFeedCursor(cursor: string): bigint | null {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return null;
  const match = /^feed\.(0|[1-9]\d{0,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? BigInt(match[1]) : null;
}
