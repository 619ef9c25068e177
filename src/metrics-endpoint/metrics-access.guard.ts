import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AdminGuard } from '../auth/admin.guard';
import { AuthThrottleService, failureKey, sourceOf } from '../auth/auth-throttle.service';
import { CredentialsGuard } from '../auth/credentials.guard';
import { parseAuthorization } from '../auth/strategies/authorization-header';
import { AuthenticationFailed, Throttled } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * `GET /metrics` (contract §18): `Authorization: Bearer $METRICS_TOKEN` when the token is set
 * (compared in constant time, failures throttled like every credential: per source address, the
 * lock checked after the token), otherwise an admin's Basic credentials, checked exactly as on
 * the admin API. Cross-site requests are refused first, as on every authenticated route (contract §3).
 */
@Injectable()
export class MetricsAccessGuard implements CanActivate {
  private readonly token: Buffer | null;
  private readonly admin = new AdminGuard();

  constructor(
    config: AppConfig,
    private readonly credentials: CredentialsGuard,
    private readonly throttle: AuthThrottleService,
  ) {
    this.token = config.metricsToken ? sha256(config.metricsToken) : null;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    this.credentials.refuseCrossSite(req);
    const header = parseAuthorization(req.headers.authorization);
    if (this.token && header?.scheme === 'bearer') {
      const key = failureKey(sourceOf(req), 'bearer:metrics');
      if (timingSafeEqual(sha256(header.credentials), this.token)) {
        this.throttle.recordSuccess(key);
        return true;
      }
      const wait = this.throttle.recordFailure(key);
      if (wait > 0) throw new Throttled(wait);
      throw new AuthenticationFailed('Invalid metrics token.', 'Bearer realm="metrics"');
    }
    await this.credentials.authenticateFor(context, ['basic']);
    return this.admin.canActivate(context);
  }
}
