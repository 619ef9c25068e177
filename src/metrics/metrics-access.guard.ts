import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AdminGuard } from '../auth/admin.guard';
import { AuthThrottleService } from '../auth/auth-throttle.service';
import { CredentialsGuard } from '../auth/credentials.guard';
import { parseAuthorization } from '../auth/strategies/authorization-header';
import { AuthenticationFailed, Throttled } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * `GET /metrics` (SPEC §18): `Authorization: Bearer $METRICS_TOKEN` when the token is set
 * (compared in constant time, failures throttled like every credential), otherwise an admin's
 * Basic credentials, checked exactly as on the admin API.
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
    const header = parseAuthorization(req.headers.authorization);
    if (this.token && header?.scheme === 'bearer') {
      const keys = [`ip:${req.ip ?? ''}`, 'id:bearer:metrics'];
      const wait = this.throttle.retryAfter(keys);
      if (wait > 0) throw new Throttled(wait);
      if (timingSafeEqual(sha256(header.credentials), this.token)) return true;
      this.throttle.recordFailure(keys);
      throw new AuthenticationFailed('Invalid metrics token.', 'Bearer realm="metrics"');
    }
    await this.credentials.authenticateFor(context, ['basic']);
    return this.admin.canActivate(context);
  }
}
