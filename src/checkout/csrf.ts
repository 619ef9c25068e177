import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { PermissionDenied } from '../common/errors/domain-errors';
import { RequestBodies } from '../common/http/request-bodies';

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

/** Where a double-submit token lives: its cookie, and the path the cookie is sent on. */
export interface DoubleSubmitCookie {
  name: string;
  path: string;
}

const CHECKOUT_PAGES: DoubleSubmitCookie = { name: CSRF_COOKIE, path: '/b/checkout' };

/** The visitor's token of `cookie` (set as a cookie when new). */
export function issueDoubleSubmitToken(
  req: Request,
  res: Response,
  secure: boolean,
  cookie: DoubleSubmitCookie,
): string {
  const existing = readCookie(req, cookie.name);
  if (existing && TOKEN.test(existing)) return existing;
  const token = randomBytes(32).toString('hex');
  res.append(
    'Set-Cookie',
    `${cookie.name}=${token}; Path=${cookie.path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
  return token;
}

/** Whether the form's `csrf_token` equals the token of `cookie` (constant time). */
export function doubleSubmitValid(req: Request, cookie: DoubleSubmitCookie): boolean {
  const stored = readCookie(req, cookie.name);
  const sent = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (!stored || typeof sent !== 'string' || !TOKEN.test(stored) || !TOKEN.test(sent)) return false;
  return timingSafeEqual(Buffer.from(stored), Buffer.from(sent));
}

/** The checkout pages' token (set as a cookie when new). */
export function issueCsrfToken(req: Request, res: Response, secure: boolean): string {
  return issueDoubleSubmitToken(req, res, secure, CHECKOUT_PAGES);
}

export function csrfValid(req: Request): boolean {
  return doubleSubmitValid(req, CHECKOUT_PAGES);
}

export class CsrfRejected extends PermissionDenied {
  constructor() {
    super('The form has expired or did not come from this site.');
  }
}

/** Reads the form first: guards run before the global interceptor that reads bodies. */
@Injectable()
export class CsrfGuard implements CanActivate {
  constructor(private readonly bodies: RequestBodies) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    await this.bodies.read(req, http.getResponse<Response>());
    if (!csrfValid(req)) throw new CsrfRejected();
    return true;
  }
}
