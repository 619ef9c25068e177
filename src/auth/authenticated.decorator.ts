import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiForbiddenResponse,
  ApiSecurity,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { DetailDto } from '../common/errors/error-body.dto';
import { AdminGuard } from './admin.guard';
import type { AuthScheme, Principal } from './principal';

export const AUTH_SCHEMES = 'checkout:auth-schemes';
export const API_KEY_SECURITY = 'api-key';
export const BASIC_SECURITY = 'basic';

const CROSS_SITE_DESCRIPTION =
  'A cross-site request: `Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` other than this service (contract §3)';

/**
 * The route needs credentials of one of these schemes: applies the guard's metadata and the
 * OpenAPI security requirements together (the global CredentialsGuard reads the metadata).
 */
export const Authenticated = (...schemes: AuthScheme[]): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(AUTH_SCHEMES, schemes),
    ...schemes.map((s) => (s === 'api-key' ? ApiSecurity(API_KEY_SECURITY) : ApiBasicAuth(BASIC_SECURITY))),
    ApiUnauthorizedResponse({
      type: DetailDto,
      description: 'No or bad credentials, or a revoked or expired key',
      headers: {
        'WWW-Authenticate': { description: 'The schemes this route accepts', schema: { type: 'string' } },
      },
    }),
    ApiForbiddenResponse({ type: DetailDto, description: CROSS_SITE_DESCRIPTION }),
    ApiTooManyRequestsResponse({
      type: DetailDto,
      description: 'Wrong credentials, after too many failures from this address for this name or key',
      headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
    }),
  );

/** Admin API: Basic auth of a user with `is_admin` (others: 403). */
export const AdminOnly = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    Authenticated('basic'),
    UseGuards(AdminGuard),
    ApiForbiddenResponse({ type: DetailDto, description: 'The user is not an admin' }),
  );

/** The authenticated caller of a route with {@link Authenticated}. */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw new Error('CurrentPrincipal used on a route without @Authenticated()');
  return req.principal;
}

/** The authenticated caller. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal =>
  principalOf(ctx.switchToHttp().getRequest<Request>()),
);
