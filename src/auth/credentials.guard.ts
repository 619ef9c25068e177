import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AuthenticationFailed, PermissionDenied, Throttled } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';
import { AuthThrottleService, failureKey, sourceOf } from './auth-throttle.service';
import { AUTH_SCHEMES } from './authenticated.decorator';
import { CROSS_SITE_MESSAGE, isCrossSite } from './cross-site';
import type { AuthScheme, Principal } from './principal';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import {
  type AuthorizationHeader,
  basicCredentials,
  knownScheme,
  parseAuthorization,
} from './strategies/authorization-header';
import { BasicStrategy } from './strategies/basic.strategy';

const CHALLENGES: Record<AuthScheme, string> = {
  'api-key': 'Api-Key realm="checkout"',
  basic: 'Basic realm="checkout"',
};
const FAILURE_MESSAGES: Record<AuthScheme, string> = {
  'api-key': 'Invalid API key.',
  basic: 'Invalid username or password.',
};

/**
 * Refuses cross-site requests (403), picks the passport strategy from the `Authorization`
 * scheme, among those the route accepts, and answers contract §3's exact 401 bodies (with
 * `WWW-Authenticate`) and 429s. Runs before any body is read (contract §3).
 */
@Injectable()
export class CredentialsGuard implements CanActivate {
  /** PUBLIC_BASE_URL's origin, as browsers send it in `Origin`. */
  private readonly ownOrigin: string;

  /**
   * The schemes of each route handler (its own, else its controller's): metadata fixed at start-up,
   * read once per handler rather than through the Reflector on every request.
   */
  private readonly schemesOf = new WeakMap<object, AuthScheme[] | null>();

  constructor(
    private readonly reflector: Reflector,
    private readonly throttle: AuthThrottleService,
    private readonly apiKeys: ApiKeyStrategy,
    private readonly basic: BasicStrategy,
    config: AppConfig,
  ) {
    this.ownOrigin = new URL(config.publicBaseUrl).origin;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const schemes = this.routeSchemes(context);
    if (!schemes) return true;
    await this.authenticateFor(context, schemes);
    return true;
  }

  private routeSchemes(context: ExecutionContext): AuthScheme[] | null {
    const handler = context.getHandler();
    let schemes = this.schemesOf.get(handler);
    if (schemes === undefined) {
      schemes =
        this.reflector.getAllAndOverride<AuthScheme[] | undefined>(AUTH_SCHEMES, [
          handler,
          context.getClass(),
        ]) ?? null;
      this.schemesOf.set(handler, schemes);
    }
    return schemes;
  }

  /** contract §3 "No cross-site writes": 403 before the credentials are even looked at. */
  refuseCrossSite(req: Request): void {
    if (isCrossSite(req.headers, this.ownOrigin)) throw new PermissionDenied(CROSS_SITE_MESSAGE);
  }

  /**
   * Authenticates the request with one of `schemes` and sets `req.principal`, or throws the 403
   * (cross-site) / 401 / 429 of contract §3. For guards of routes that accept something besides these
   * (the metrics token).
   */
  async authenticateFor(context: ExecutionContext, schemes: AuthScheme[]): Promise<Principal> {
    const req = context.switchToHttp().getRequest<Request>();
    this.refuseCrossSite(req);
    const challenge = schemes.map((s) => CHALLENGES[s]).join(', ');
    const header = parseAuthorization(req.headers.authorization);
    const presented = knownScheme(header);
    if (!presented)
      throw new AuthenticationFailed('Authentication credentials were not provided.', challenge);
    if (!schemes.includes(presented)) {
      throw new AuthenticationFailed(
        `${presented === 'basic' ? 'Basic' : 'API key'} authentication is not accepted here; use ${schemes.map((s) => (s === 'basic' ? 'Basic' : 'an API key')).join(' or ')}.`,
        challenge,
      );
    }

    // The credential is checked first, locked or not: a lock never refuses a correct one (contract §3).
    const key = failureKey(sourceOf(req), `${presented}:${identity(presented, header?.credentials ?? '')}`);
    const principal = await this.authenticate(presented, header!);
    if (!principal) {
      const wait = this.throttle.recordFailure(key);
      if (wait > 0) throw new Throttled(wait);
      throw new AuthenticationFailed(FAILURE_MESSAGES[presented], challenge);
    }
    this.throttle.recordSuccess(key);
    req.principal = principal;
    return principal;
  }

  /**
   * The principal of the credentials, or null when they are wrong: the strategies' own `validate`,
   * called directly with the header already parsed (as their passport `authenticate` would, without
   * a passport strategy object per request).
   */
  private async authenticate(scheme: AuthScheme, header: AuthorizationHeader): Promise<Principal | null> {
    if (scheme === 'api-key') {
      return header.credentials ? (await this.apiKeys.validate(header.credentials)) || null : null;
    }
    const credentials = basicCredentials(header.credentials);
    return credentials
      ? (await this.basic.validate(credentials.username, credentials.password)) || null
      : null;
  }
}

/** The username or key prefix presented, for per-identity throttling (never the secret). */
function identity(scheme: AuthScheme, credentials: string): string {
  if (scheme === 'api-key') return credentials.split('.', 1)[0].slice(0, 16);
  return (basicCredentials(credentials)?.username ?? '').slice(0, 150);
}
