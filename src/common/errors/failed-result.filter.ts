import { Catch } from '@nestjs/common';
import type { Request } from 'express';
import { BodyRefused } from './body-errors';
import { ErrorFilter } from './error.filter';
import { providerCallError } from './provider-errors';

/**
 * For routes whose errors say `"result": "failed"` (contract §16 inquiry): every `{"detail"}` body
 * (404, 401, 403, 503) gains it; field errors keep their DRF shape, and so does a body that could
 * not be read (malformed JSON, too deep, too large: the plain `{"detail"}` the API document gives
 * the route's 400 and that it had when bodies were parsed before routing). A payment provider that
 * did not answer (503 with `provider_error`, contract §20.1) is `"result": "pending"`: the outcome is
 * not known yet; its refusal (502) is `"failed"`.
 */
@Catch()
export class FailedResultFilter extends ErrorFilter {
  protected override render(body: unknown, _req: Request, error?: unknown): unknown {
    if (error instanceof BodyRefused) return body;
    if (typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string') {
      return { ...body, result: resultOf(error) };
    }
    return body;
  }
}

/** `"pending"` for a provider that did not answer (its outcome is not known yet), else `"failed"`. */
export function resultOf(error: unknown): 'failed' | 'pending' {
  return providerCallError(error)?.retryable ? 'pending' : 'failed';
}
