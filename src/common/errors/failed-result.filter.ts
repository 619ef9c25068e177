import { Catch } from '@nestjs/common';
import type { Request } from 'express';
import { ErrorFilter } from './error.filter';

/**
 * For routes whose errors say `"result": "failed"` (SPEC §16 inquiry): every `{"detail"}` body
 * (404, 401, 403, 503, malformed JSON) gains it; field errors keep their DRF shape.
 */
@Catch()
export class FailedResultFilter extends ErrorFilter {
  protected override render(body: unknown, _req: Request): unknown {
    if (typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string') {
      return { ...body, result: 'failed' };
    }
    return body;
  }
}
