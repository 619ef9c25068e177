import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { RawBodyRequest } from '../common/http/json-body';
import { RedirectPayments } from './redirect-payments.service';

/**
 * `POST /b/checkout/v1/gateways/{code}/notify/` (contract §20): a provider's server-to-server
 * notification. Verified over the raw body before anything in it is read: forged or unverifiable
 * → 400, nothing changes; 200 once recorded (or when it concerns nothing of ours).
 */
@ApiExcludeController()
@Controller('b/checkout/v1/gateways')
export class GatewayNotifyController {
  constructor(private readonly redirects: RedirectPayments) {}

  @Post(':code/notify')
  @HttpCode(200)
  async notify(@Param('code') code: string, @Req() req: RawBodyRequest): Promise<{ received: true }> {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    await this.redirects.notified(code, req.rawBody ?? '', headers);
    return { received: true };
  }
}
