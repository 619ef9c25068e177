import { Controller, HttpCode, Param, Req, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import type { Response } from 'express';
import { ApiExcludeController } from '@nestjs/swagger';
import type { RawBodyRequest } from '../common/http/json-body';
import { RedirectPayments } from './redirect-payments.service';

/**
 * `POST /b/checkout/v1/gateways/{code}/notify/` (contract §20): a provider's server-to-server
 * notification. Verified over the raw body before anything in it is read: forged or unverifiable
 * → 400, nothing changes; 200 once recorded (or when it concerns nothing of ours), with
 * `{"received": true}` or the answer the provider expects (KNET: `REDIRECT=<receipt URL>` as
 * `text/plain`, K-064 §5, docs/gateways/knet.md).
 */
@ApiExcludeController()
@Controller('b/checkout/v1/gateways')
export class GatewayNotifyController {
  constructor(private readonly redirects: RedirectPayments) {}

  @Post(':code/notify')
  @HttpCode(200)
  async notify(
    @Param('code') code: string,
    @Req() req: RawBodyRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ received: true } | string> {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const reply = await this.redirects.notified(code, req.rawBody ?? formText(req.body), headers);
    if (!reply) return { received: true };
    res.type(reply.contentType);
    return reply.body;
  }
}

/**
 * A form-encoded body (KNET posts its result as `application/x-www-form-urlencoded`, K-064 §5) as
 * text again: only JSON bodies keep their raw text, and a form's fields are all KNET's drivers read
 * (no signature is computed over its bytes). Anything else is ''.
 */
function formText(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return '';
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body as Record<string, unknown>))
    if (typeof value === 'string') form.append(name, value);
  return form.toString();
}
