import type { NextFunction, Request, Response } from 'express';

/** contract §1: every route answers with and without a trailing slash, with no redirect. */
export function ignoreTrailingSlash(req: Request, _res: Response, next: NextFunction): void {
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  if (path.length > 1 && path.endsWith('/')) {
    req.url = path.replace(/\/+$/, '') + (queryAt === -1 ? '' : req.url.slice(queryAt));
  }
  next();
}
