import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { PermissionDenied } from '../common/errors/domain-errors';

/**
 * CSRF protection of the pages' forms: a double-submit token. A GET sets a random cookie (HttpOnly,
 * SameSite=Lax, path /b/checkout) and puts the same value in each form; a POST must bring both,
 * equal. Another site can neither read the cookie nor make the browser send it on a cross-site
 * POST. Stateless, so it works the same on every replica.
 */
export const CSRF_COOKIE = 'checkout_csrf';
export const CSRF_FIELD = 'csrf_token';
const TOKEN = /^[0-9a-f]{64}$/;

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The visitor's token (set as a cookie when new). */
export function issueCsrfToken(req: Request, res: Response, secure: boolean): string {
  const existing = readCookie(req, CSRF_COOKIE);
  if (existing && TOKEN.test(existing)) return existing;
  const token = randomBytes(32).toString('hex');
  res.append(
    'Set-Cookie',
    `${CSRF_COOKIE}=${token}; Path=/b/checkout; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
  return token;
}

export function csrfValid(req: Request): boolean {
  const cookie = readCookie(req, CSRF_COOKIE);
  const sent = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (!cookie || typeof sent !== 'string' || !TOKEN.test(cookie) || !TOKEN.test(sent)) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(sent));
}

export class CsrfRejected extends PermissionDenied {
  constructor() {
    super('The form has expired or did not come from this site.');
  }
}

@Injectable()
export class CsrfGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (!csrfValid(context.switchToHttp().getRequest<Request>())) throw new CsrfRejected();
    return true;
  }
}
