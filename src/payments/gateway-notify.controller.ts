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
    const reply = await this.redirects.notified(code, bodyText(req), headers);
    if (!reply) return { received: true };
    res.type(reply.contentType);
    return reply.body;
  }
}

/**
 * The body as the driver reads it: the raw text of a JSON body (signatures are computed over it), a
 * body read as text or bytes as its UTF-8 text, else a form's fields as form-encoded text again.
 */
function bodyText(req: RawBodyRequest): string {
  if (req.rawBody !== undefined) return req.rawBody;
  const body: unknown = req.body;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return formText(body);
}

/**
 * A form-encoded body (KNET posts its result as `application/x-www-form-urlencoded`, K-064 §3.5.2,
 * §5) as text again: a form's fields are all KNET's driver reads (no signature is computed over its
 * bytes). A field without a value is written as its name alone, as it came: KNET's result posted
 * as the bare `trandata` hex with the form's content type (the raw body KNET's own kit reads,
 * srku14/KNET-Payment-Gateway-SDK `GetHandlerResponse.php`) parses as one key with an empty value,
 * and must reach the driver as that hex, not as `<hex>=`. Anything else is ''.
 */
function formText(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return '';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(body as Record<string, unknown>))
    if (typeof value === 'string')
      parts.push(value === '' ? encoded(name) : `${encoded(name)}=${encoded(value)}`);
  return parts.join('&');
}

/** `application/x-www-form-urlencoded` text of one name or value (as URLSearchParams writes it). */
function encoded(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}
