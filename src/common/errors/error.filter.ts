import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { bodyParserError } from './body-errors';
import { DomainError, ServiceUnavailable } from './domain-errors';
import { providerCallError } from './provider-errors';
import { UnavailableErrors } from './unavailable-errors';

/**
 * The one error path (contract §2): domain errors keep their status and body; Nest's own HTTP
 * exceptions (unknown route, etc.) become `{"detail"}` bodies; anything else is a 500 with no
 * internals, logged with the request id. A database out of reach ({@link UnavailableErrors}) is a 503;
 * a payment provider's failure ({@link providerCallError}) a 503 or 502 with `provider_error`.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  constructor(private readonly unavailable: UnavailableErrors) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    if (res.headersSent) return;
    const { status, body, headers } = this.describe(error, req);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(this.render(body, req, error));
  }

  /** The body as sent: a route family with its own error shape (operations) overrides this. */
  protected render(body: unknown, _req: Request, _error?: unknown): unknown {
    return body;
  }

  protected describe(
    error: unknown,
    req: Request,
  ): { status: number; body: unknown; headers: Record<string, string> } {
    if (error instanceof DomainError) {
      return { status: error.status, body: error.body(), headers: error.headers };
    }
    if (error instanceof HttpException) {
      // Nest turns multer's limit errors into 400s; a field over the body limit is a 413 (contract §1).
      const tooLarge = bodyParserError(error.cause);
      if (tooLarge?.status === 413) return { status: 413, body: tooLarge.body(), headers: tooLarge.headers };
      const status = error.getStatus();
      return { status, body: { detail: detailFor(status, error) }, headers: {} };
    }
    const provider = providerCallError(error);
    if (provider) {
      // contract §20.1: the provider's status is reported in the body, never answered as ours.
      this.logger.warn(
        { providerError: provider.providerError, reqId: req.id },
        'A payment provider call failed',
      );
      return { status: provider.status, body: provider.body(), headers: provider.headers };
    }
    const refused = bodyParserError(error);
    if (refused) return { status: refused.status, body: refused.body(), headers: refused.headers };
    if (this.unavailable.matches(error)) {
      // Out of reach or contended right now (contract §17): the client retries; never a 500.
      this.logger.warn({ err: error, reqId: req.id }, 'Database unavailable');
      const unavailable = new ServiceUnavailable();
      return { status: unavailable.status, body: unavailable.body(), headers: unavailable.headers };
    }
    this.logger.error({ err: error, reqId: req.id }, 'Unhandled error');
    return { status: 500, body: { detail: 'Internal server error.' }, headers: {} };
  }
}

function detailFor(status: number, error: HttpException): string {
  switch (status) {
    case 404:
      return 'Not found.';
    case 405:
      return `Method "${'method' in error ? String(error.method) : ''}" not allowed.`;
    case 413:
      return 'Request body is too large.';
    case 503:
      return 'Service temporarily unavailable.';
    default: {
      const response = error.getResponse();
      if (typeof response === 'string') return response;
      const message = (response as { message?: unknown }).message;
      return typeof message === 'string' ? message : error.message;
    }
  }
}
