import { Catch } from '@nestjs/common';
import type { Request } from 'express';
import { BodyRefused } from './body-errors';
import { ErrorFilter } from './error.filter';

/**
 * For routes whose errors say `"result": "failed"` (contract §16 inquiry): every `{"detail"}` body
 * (404, 401, 403, 503) gains it; field errors keep their DRF shape, and so does a body that could
 * not be read (malformed JSON, too deep, too large: the plain `{"detail"}` the API document gives
 * the route's 400 and that it had when bodies were parsed before routing).
 */
@Catch()
export class FailedResultFilter extends ErrorFilter {
  protected override render(body: unknown, _req: Request, error?: unknown): unknown {
    if (error instanceof BodyRefused) return body;
    if (typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string') {
      return { ...body, result: 'failed' };
    }
    return body;
  }
}
