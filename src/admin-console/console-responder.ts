import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  doubleSubmitValid,
  type DoubleSubmitCookie,
  issueDoubleSubmitToken,
  readCookie,
} from '../checkout/csrf';
import type { PageLanguage } from '../checkout/i18n';
import { sendPage } from '../checkout/page-response';
import { html } from '../common/html/html';
import { AppConfig } from '../config/app-config';
import { AdminSessionsService, csrfTokenMatches, type ConsoleSession } from './admin-sessions.service';
import { consoleStrings, type ConsoleStrings } from './console-i18n';
import { CONSOLE_CSRF_FIELD, consolePage, type ConsoleFrame } from './console-templates';
import { formText } from './form-validation';

export const SESSION_COOKIE = 'checkout_admin';
const LOGIN_COOKIE: DoubleSubmitCookie = { name: 'checkout_admin_login', path: '/admin' };
const LANGUAGE_COOKIE = 'checkout_admin_lang';
export const CONSOLE_HOME = '/admin/transactions';

/** One page request of a signed-in admin: who, in which language, and how to answer. */
export interface ConsoleRequest {
  session: ConsoleSession;
  language: PageLanguage;
  t: ConsoleStrings;
  csrf: string;
  /** The page's path, route parameters, query and (a form post's) parsed body. */
  path: string;
  params: Readonly<Record<string, string>>;
  query: Request['query'];
  body: unknown;
}

/**
 * What every console page shares (contract §19): the session cookie and its CSRF token, the language
 * (`?lang=` switches, a cookie remembers), the sign-in form's double-submit token, and answering
 * with a page (the checkout pages' headers and CSP) or a redirect.
 */
@Injectable()
export class ConsoleResponder {
  /** Requests whose language cookie is already being set (the language is asked more than once). */
  private readonly languageSet = new WeakSet<Request>();
  /** The session each request was admitted with by the console's guard. */
  private readonly admitted = new WeakMap<Request, ConsoleSession>();

  constructor(
    private readonly sessions: AdminSessionsService,
    private readonly config: AppConfig,
  ) {}

  /** The request's live session (the one it was admitted with, if {@link admit} ran), or null. */
  session(req: Request): Promise<ConsoleSession | null> {
    const admitted = this.admitted.get(req);
    return admitted ? Promise.resolve(admitted) : this.sessions.resolve(readCookie(req, SESSION_COOKIE));
  }

  /** Looks the session up once for the whole request (the console's guard); null when none. */
  async admit(req: Request): Promise<ConsoleSession | null> {
    const session = await this.sessions.resolve(readCookie(req, SESSION_COOKIE));
    if (session) this.admitted.set(req, session);
    return session;
  }

  /**
   * The signed-in admin, or null after answering for it: a redirect to the sign-in page, or (for
   * a form, `form`) a 403 when it does not carry the session's CSRF token. Page controllers get it
   * through `@ConsolePage()` / `@ConsoleForm()` instead (console-session.guard.ts).
   */
  async signedIn(req: Request, res: Response, form = false): Promise<ConsoleRequest | null> {
    const session = await this.session(req);
    if (!session) {
      this.redirect(res, '/admin/sign-in');
      return null;
    }
    const request = this.pageRequest(req, res, session);
    if (form && !csrfTokenMatches(session.session, formText(req.body, CONSOLE_CSRF_FIELD))) {
      this.formExpired(res, request);
      return null;
    }
    return request;
  }

  /** A signed-in admin's page request: the session, its language (a `?lang=` switch is remembered). */
  pageRequest(req: Request, res: Response, session: ConsoleSession): ConsoleRequest {
    const language = this.language(req, res);
    const t = consoleStrings(language);
    const { path, query } = req;
    const params = Object.fromEntries(
      Object.entries(req.params).map(([name, value]) => [name, String(value)]),
    );
    const body: unknown = req.body;
    return { session, language, t, csrf: session.session.csrfToken, path, params, query, body };
  }

  /** 403: a form that does not carry its session's CSRF token (expired, or posted from elsewhere). */
  formExpired(res: Response, request: ConsoleRequest): void {
    this.page(res, 403, request, { title: request.t.formExpired, path: CONSOLE_HOME }, html``);
  }

  page(
    res: Response,
    status: number,
    request: { language: PageLanguage; session?: ConsoleSession | null },
    frame: Pick<ConsoleFrame, 'title' | 'path' | 'notice'>,
    body: ConsoleFrame['body'],
  ): void {
    const session = request.session ?? null;
    const signedIn = session
      ? { username: session.user.username, csrfToken: session.session.csrfToken }
      : null;
    sendPage(res, {
      kind: 'html',
      status,
      html: consolePage({ ...frame, language: request.language, signedIn, body }),
    });
  }

  notFound(res: Response, request: ConsoleRequest): void {
    this.page(res, 404, request, { title: request.t.notFound, path: request.path }, html``);
  }

  redirect(res: Response, location: string): void {
    sendPage(res, { kind: 'redirect', status: 303, location });
  }

  /** `?lang=` switches (and is remembered in a cookie); else the cookie; else English. */
  language(req: Request, res: Response): PageLanguage {
    const asked = req.query.lang;
    if (asked === 'en' || asked === 'ar') {
      if (readCookie(req, LANGUAGE_COOKIE) !== asked && !this.languageSet.has(req)) {
        this.languageSet.add(req);
        res.append('Set-Cookie', this.cookie(LANGUAGE_COOKIE, asked, 365 * 86_400));
      }
      return asked;
    }
    return readCookie(req, LANGUAGE_COOKIE) === 'ar' ? 'ar' : 'en';
  }

  /** The sign-in form's double-submit token (no session yet), as the checkout pages' forms have. */
  loginToken(req: Request, res: Response): string {
    return issueDoubleSubmitToken(req, res, this.secure, LOGIN_COOKIE);
  }

  loginTokenValid(req: Request): boolean {
    return doubleSubmitValid(req, LOGIN_COOKIE);
  }

  private get secure(): boolean {
    return this.config.publicBaseUrl.startsWith('https://');
  }

  /** `HttpOnly; SameSite=Lax; Path=/admin`, and `Secure` behind HTTPS. */
  cookie(name: string, value: string, maxAgeSeconds?: number): string {
    return [
      `${name}=${value}`,
      'Path=/admin',
      'HttpOnly',
      'SameSite=Lax',
      ...(this.secure ? ['Secure'] : []),
      ...(maxAgeSeconds !== undefined ? [`Max-Age=${maxAgeSeconds}`] : []),
    ].join('; ');
  }
}
