import type { NextFunction, Request, Response } from 'express';
import { DomainError, UnsupportedMediaType } from '../errors/domain-errors';
import { hasBody, RAW_TEXT_TYPES, takesRawText } from './request-bodies';

const ACCEPTED = [
  'application/json',
  'application/*+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
];

/**
 * A body sent with no `Content-Type` at all: still contract §1's 415, but saying what is
 * missing instead of quoting an empty media type. docs/decisions.md "A body without Content-Type".
 */
export class MissingMediaType extends DomainError {
  readonly status = 415;
  constructor() {
    super(
      'The request has a body but no Content-Type, so it was not read: send "Content-Type: application/json" (or a form: application/x-www-form-urlencoded, multipart/form-data).',
    );
  }
}

/** contract §1: bodies must be JSON, urlencoded or multipart; anything else → 415. */
export function requireKnownMediaType(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req) || req.is(ACCEPTED)) return next();
  if (takesRawText(req) && req.is(RAW_TEXT_TYPES)) return next();
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim();
  next(mediaType === '' ? new MissingMediaType() : new UnsupportedMediaType(mediaType));
}
