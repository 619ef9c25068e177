import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import { principalScope } from '../auth/principal';
import { BadRequest, StateConflict, UnprocessableEntity } from '../common/errors/domain-errors';
import { LIMITS } from '../common/validation/limits';
import type { KeyRef, StoredResponse } from './idempotency-keys.repository';
import { IdempotencyService, type HeldClaim } from './idempotency.service';
import { fingerprintRequest } from './request-fingerprint';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IN_FLIGHT_MESSAGE = 'A request with this Idempotency-Key is still being processed; retry later.';
export const MISMATCH_MESSAGE = 'This Idempotency-Key was already used with a different request body.';
/** Response headers that a replay repeats (the body and status always). */
const KEPT_HEADERS = ['ETag', 'Location'];

/**
 * contract §11 on one route: with an `Idempotency-Key` header, the request claims the key for its
 * credential and route before the handler runs; a repeat with the same fingerprint gets the first
 * response back (`Idempotent-Replayed: true`). Only successful (2xx) responses are kept: a refused
 * or failed request frees the key (docs/decisions.md, "Idempotency").
 *
 * Runs after authentication (the scope is the credential) and inside the multipart upload
 * interceptor (the fingerprint covers the uploaded file).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const key = req.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    if (key === undefined) return next.handle();
    // A promise, not an operator chain: the response is stored even if the client goes away.
    return from(this.run(context, req, http.getResponse<Response>(), String(key), next));
  }

  private async run(
    context: ExecutionContext,
    req: Request,
    res: Response,
    key: string,
    next: CallHandler,
  ): Promise<unknown> {
    if (key.length === 0 || key.length > LIMITS.idempotencyKey) {
      throw new BadRequest(`${IDEMPOTENCY_KEY_HEADER} must be 1 to ${LIMITS.idempotencyKey} characters.`);
    }
    if (!req.principal) throw new Error('IdempotencyInterceptor used on a route without @Authenticated()');
    const ref: KeyRef = { scope: principalScope(req.principal), key, route: routeOf(context, req) };
    const claim = await this.idempotency.claim(ref, await fingerprintRequest(req));
    switch (claim.kind) {
      case 'in_flight':
        throw new StateConflict(IN_FLIGHT_MESSAGE);
      case 'mismatch':
        throw new UnprocessableEntity(MISMATCH_MESSAGE);
      case 'replay':
        return replay(res, claim.response);
      case 'claimed':
        return this.runClaimed(claim, res, next);
    }
  }

  private async runClaimed(claim: HeldClaim, res: Response, next: CallHandler): Promise<unknown> {
    let value: unknown;
    try {
      value = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (error) {
      await this.release(claim);
      throw error;
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      await this.release(claim);
      return value;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const header = res.getHeader(name);
      if (header !== undefined) headers[name] = String(header);
    }
    try {
      await this.idempotency.complete(claim, {
        status: res.statusCode,
        headers,
        body: JSON.stringify(value) ?? '',
      });
    } catch (error) {
      // The request succeeded: answer it. The claim stays in flight until its lease runs out.
      this.logger.error({ err: error }, 'Could not store an idempotent response');
    }
    return value;
  }

  private async release(claim: HeldClaim): Promise<void> {
    try {
      await this.idempotency.release(claim);
    } catch (error) {
      this.logger.error({ err: error }, 'Could not release an idempotency key');
    }
  }
}

/** Sends the stored response again: status, kept headers, the same body. */
function replay(res: Response, response: StoredResponse): unknown {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  return response.body === '' ? undefined : (JSON.parse(response.body) as unknown);
}

/** `METHOD /route/:pattern`: a key belongs to one endpoint, whatever the session in the path. */
function routeOf(context: ExecutionContext, req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  const route = typeof path === 'string' ? path : `${context.getClass().name}.${context.getHandler().name}`;
  return `${req.method} ${route}`.slice(0, 128);
}
