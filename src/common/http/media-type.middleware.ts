import type { NextFunction, Request, Response } from 'express';
import { UnsupportedMediaType } from '../errors/domain-errors';

const ACCEPTED = [
  'application/json',
  'application/*+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
];

/** SPEC §1: bodies must be JSON, urlencoded or multipart; anything else → 415. */
export function requireKnownMediaType(req: Request, _res: Response, next: NextFunction): void {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody || req.is(ACCEPTED)) return next();
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim();
  next(new UnsupportedMediaType(mediaType));
}
