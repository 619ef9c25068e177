import type { NextFunction, Request, Response } from 'express';
import { UnsupportedMediaType } from '../errors/domain-errors';
import { hasBody } from './request-bodies';

const ACCEPTED = [
  'application/json',
  'application/*+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
];

/** contract §1: bodies must be JSON, urlencoded or multipart; anything else → 415. */
export function requireKnownMediaType(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req) || req.is(ACCEPTED)) return next();
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim();
  next(new UnsupportedMediaType(mediaType));
}
