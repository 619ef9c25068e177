import { Catch } from '@nestjs/common';
import type { Request } from 'express';
import { ErrorFilter } from '../common/errors/error.filter';

/**
 * contract §2: on the operations API every `{"detail"}` error (401 from the guard, malformed JSON, ...)
 * also carries `"operation"` and `"result": "failed"`.
 */
@Catch()
export class OperationErrorFilter extends ErrorFilter {
  protected override render(body: unknown, req: Request): unknown {
    const sent = (req.body as { operation?: unknown } | undefined)?.operation;
    const detail =
      typeof body === 'object' && body !== null && 'detail' in body ? body.detail : 'Invalid input.';
    return { detail, operation: typeof sent === 'string' ? sent : null, result: 'failed' };
  }
}
