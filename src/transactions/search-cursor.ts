/** Where a page of the newest-first transaction search ended: the last row's (created_at, id). */
export interface SearchPosition {
  createdAt: Date;
  id: string;
}

const DECODED = /^(\d{1,15})\.([1-9]\d{0,19})$/;

/**
 * The opaque `cursor` of the admin search (contract §18): base64url of `<created_at ms>.<id>`. A
 * keyset, not an offset: rows written while an admin pages are newer than any cursor (never
 * shown twice, never shifting the pages), and a page costs the same however deep it is.
 */
export function encodeSearchCursor(position: SearchPosition): string {
  return Buffer.from(`${position.createdAt.getTime()}.${position.id}`, 'utf8').toString('base64url');
}

/** The position a cursor stands for, or null when it is not one this service made. */
export function decodeSearchCursor(cursor: string): SearchPosition | null {
  if (!/^[A-Za-z0-9_-]{1,60}$/.test(cursor)) return null;
  const match = DECODED.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const createdAt = new Date(Number(match[1]));
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: match[2] };
}
