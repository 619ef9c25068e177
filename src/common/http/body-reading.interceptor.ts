import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { hasBody, RequestBodies } from './request-bodies';

/**
 * Reads the request body (JSON, urlencoded) before the route's other interceptors and pipes, on every
 * route declared with a method that has a body (body-routes.ts).
 * An interceptor because Nest runs them after all guards: without valid credentials a body is
 * never read or parsed, and the 401 costs nothing (contract §3). Routes Nest does not match (404)
 * never read theirs either.
 */
@Injectable()
export class BodyReadingInterceptor implements NestInterceptor {
  constructor(private readonly bodies: RequestBodies) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (!hasBody(req)) return next.handle(); // most requests (GET): nothing to wait for
    return from(this.bodies.read(req, http.getResponse<Response>())).pipe(switchMap(() => next.handle()));
  }
}
