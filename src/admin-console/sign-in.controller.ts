import { Controller, Get, Req, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { sourceOf } from '../auth/auth-throttle.service';
import { readCookie } from '../checkout/csrf';
import { AdminSessionsService } from './admin-sessions.service';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { consoleStylesheet } from './console-assets';
import { consoleStrings } from './console-i18n';
import { signInBody } from './console-pages';
import { CONSOLE_HOME, ConsoleResponder, SESSION_COOKIE } from './console-responder';
import { CONSOLE_CSRF_FIELD } from './console-templates';
import { formText } from './form-validation';

/** Entering and leaving the console (contract §19), and its stylesheet. */
@ApiExcludeController()
@Controller('admin')
export class SignInController {
  private readonly stylesheetText: string;

  constructor(
    private readonly sessions: AdminSessionsService,
    private readonly pages: ConsoleResponder,
    drivers: GatewayDrivers,
  ) {
    this.stylesheetText = consoleStylesheet(drivers.list());
  }

  @Get('static/console.css')
  stylesheet(@Res() res: Response): void {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css').send(this.stylesheetText);
  }

  @Get()
  async home(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.pages.redirect(res, (await this.pages.session(req)) ? CONSOLE_HOME : '/admin/sign-in');
  }

  @Get('sign-in')
  async form(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (await this.pages.session(req)) return this.pages.redirect(res, CONSOLE_HOME);
    const language = this.pages.language(req, res);
    const t = consoleStrings(language);
    const token = this.pages.loginToken(req, res);
    this.pages.page(
      res,
      200,
      { language },
      { title: t.signInTitle, path: '/admin/sign-in' },
      signInBody(language, token, ''),
    );
  }

  @Post('sign-in')
  async signIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    const language = this.pages.language(req, res);
    const t = consoleStrings(language);
    const username = formText(req.body, 'username');
    const again = (status: number, message: string) =>
      this.pages.page(
        res,
        status,
        { language },
        { title: t.signInTitle, path: '/admin/sign-in', notice: { kind: 'error', text: message } },
        signInBody(language, this.pages.loginToken(req, res), username),
      );
    if (!this.pages.loginTokenValid(req)) return again(403, t.formExpired);
    const outcome = await this.sessions.signIn(
      username,
      formText(req.body, 'password'),
      sourceOf(req),
      readCookie(req, SESSION_COOKIE),
    );
    if (outcome.ok) {
      res.append('Set-Cookie', this.pages.cookie(SESSION_COOKIE, outcome.token));
      return this.pages.redirect(res, CONSOLE_HOME);
    }
    if (outcome.reason === 'throttled') {
      res.setHeader('Retry-After', String(outcome.retryAfter));
      return again(429, t.throttled(outcome.retryAfter));
    }
    if (outcome.reason === 'not-admin') return again(403, t.notAdmin);
    return again(401, t.invalidCredentials);
  }

  @Post('sign-out')
  async signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.pages.session(req);
    if (session && !this.sessions.csrfMatches(session.session, formText(req.body, CONSOLE_CSRF_FIELD))) {
      return void (await this.pages.signedIn(req, res, true)); // answers the 403
    }
    await this.sessions.signOut(readCookie(req, SESSION_COOKIE));
    res.append('Set-Cookie', this.pages.cookie(SESSION_COOKIE, '', 0));
    this.pages.redirect(res, '/admin/sign-in');
  }
}
