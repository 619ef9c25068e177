import { Catch } from '@nestjs/common';
import type { Request } from 'express';
import { ErrorFilter } from '../common/errors/error.filter';
import { resultOf } from '../common/errors/failed-result.filter';

/**
 * contract §2: on the operations API every `{"detail"}` error (401 from the guard, malformed JSON, ...)
 * also carries `"operation"` and `"result": "failed"`. A payment provider's error keeps its
 * `provider_error` (contract §20.1), and is `"result": "pending"` when the provider did not answer.
 */
@Catch()
export class OperationErrorFilter extends ErrorFilter {
  protected override render(body: unknown, req: Request, error?: unknown): unknown {
    const sent = (req.body as { operation?: unknown } | undefined)?.operation;
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const detail = 'detail' in fields ? fields.detail : 'Invalid input.';
    return {
      detail,
      operation: typeof sent === 'string' ? sent : null,
      result: resultOf(error),
      ...(fields.provider_error !== undefined ? { provider_error: fields.provider_error } : {}),
    };
  }
}
