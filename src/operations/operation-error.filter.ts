import { ArgumentsHost, Catch } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ErrorFilter } from '../common/errors/error.filter';

/**
 * SPEC §2: on the operations API every `{"detail"}` error (401 from the guard, malformed JSON, ...)
 * also carries `"operation"` and `"result": "failed"`.
 */
@Catch()
export class OperationErrorFilter extends ErrorFilter {
  override catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    if (res.headersSent) return;
    const { status, body, headers } = this.describe(error, req);
    const sent = (req.body as { operation?: unknown } | undefined)?.operation;
    const detail =
      typeof body === 'object' && body !== null && 'detail' in body ? body.detail : 'Invalid input.';
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json({ detail, operation: typeof sent === 'string' ? sent : null, result: 'failed' });
  }
}
