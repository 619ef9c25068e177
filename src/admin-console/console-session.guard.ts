import {
  applyDecorators,
  ArgumentsHost,
  CanActivate,
  Catch,
  createParamDecorator,
  ExceptionFilter,
  ExecutionContext,
  Injectable,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { sendPage } from '../checkout/page-response';
import { NotFound } from '../common/errors/domain-errors';
import { csrfTokenMatches } from './admin-sessions.service';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { CONSOLE_CSRF_FIELD } from './console-templates';
import { formText } from './form-validation';

/** No console session cookie, or one that was signed out, revoked or has gone idle. */
class SignInRequired extends Error {}

/** A console form posted without its session's CSRF token (expired, or from another site). */
class FormExpired extends Error {
  constructor(readonly request: ConsoleRequest) {
    super('The form does not carry its session’s CSRF token');
  }
}

/** The page request each admitted request was given by the guard, for {@link ConsolePage}. */
const admittedPages = new WeakMap<Request, ConsoleRequest>();

/**
 * The console's credentials are checked before a form's body is read (contract §3 "credentials
 * before bodies"): Nest runs guards before the body-reading interceptor, so a post without a
 * live session is redirected to the sign-in page with its body never parsed.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(private readonly pages: ConsoleResponder) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const session = await this.pages.admit(req);
    if (!session) throw new SignInRequired();
    admittedPages.set(req, this.pages.pageRequest(req, http.getResponse<Response>(), session));
    return true;
  }
}

/**
 * How a console page refuses: no session → the sign-in page; a form without its CSRF token → 403;
 * a record that is not there (NotFound from a service) → the console's 404 page.
 */
@Catch(SignInRequired, FormExpired, NotFound)
class ConsoleRefusals implements ExceptionFilter {
  constructor(private readonly pages: ConsoleResponder) {}

  catch(refusal: SignInRequired | FormExpired | NotFound, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    if (res.headersSent) return;
    if (refusal instanceof FormExpired) return this.pages.formExpired(res, refusal.request);
    const admitted = admittedPages.get(http.getRequest<Request>());
    if (refusal instanceof NotFound && admitted) return this.pages.notFound(res, admitted);
    sendPage(res, { kind: 'redirect', status: 303, location: '/admin/sign-in' });
  }
}

/** A console page controller: only for a signed-in session, checked before any body is read. */
export const SignedInPages = (): ClassDecorator =>
  applyDecorators(UseGuards(ConsoleSessionGuard), UseFilters(ConsoleRefusals));

/**
 * The signed-in admin's page request (a handler of a {@link SignedInPages} controller). With
 * `'form'` the posted form must carry the session's CSRF token (read after the body, which the
 * guard never sees); otherwise a 403 page answers and the handler does not run.
 */
export const ConsolePage = createParamDecorator((kind: 'form' | undefined, ctx: ExecutionContext) => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const admitted = admittedPages.get(req);
  if (!admitted) throw new SignInRequired();
  const request: ConsoleRequest = { ...admitted, body: req.body as unknown }; // read after the guard
  if (
    kind === 'form' &&
    !csrfTokenMatches(request.session.session, formText(request.body, CONSOLE_CSRF_FIELD))
  )
    throw new FormExpired(request);
  return request;
});

/** {@link ConsolePage} for a form post: its CSRF token is checked first. */
export const ConsoleForm = (): ParameterDecorator => ConsolePage('form');
