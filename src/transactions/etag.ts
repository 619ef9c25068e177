import type { Transaction } from './transaction.entity';

/** The ETag of a transaction: its row version, a strong validator (RFC 9110 §8.8.3). */
export const etagOf = (tx: Pick<Transaction, 'version'>): string => `"${tx.version}"`;

const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/**
 * Whether an `If-Match` header lets a write to a representation with `etag` proceed
 * (RFC 9110 §13.1.1): `*`, or a list holding a strong tag equal to it. A weak tag (`W/"3"`)
 * never matches: If-Match uses the strong comparison. A malformed header matches nothing.
 */
export function ifMatchAllows(header: string, etag: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  return value.split(',').some((item) => {
    const tag = ENTITY_TAG.exec(item.trim());
    return tag !== null && tag[1] === undefined && `"${tag[2]}"` === etag;
  });
}

/**
 * Whether an `If-None-Match` header says the client already holds the representation with `etag`
 * (RFC 9110 §13.1.2): `*`, or a list holding a tag equal to it by the weak comparison (`W/"3"`
 * matches `"3"`). A malformed header matches nothing.
 */
export function noneMatchHolds(header: string, etag: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  return value.split(',').some((item) => {
    const tag = ENTITY_TAG.exec(item.trim());
    return tag !== null && `"${tag[2]}"` === etag;
  });
}
