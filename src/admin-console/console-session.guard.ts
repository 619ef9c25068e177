import {
  applyDecorators,
  ArgumentsHost,
  CanActivate,
  Catch,
  ExceptionFilter,
  ExecutionContext,
  Injectable,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { sendPage } from '../checkout/page-response';
import { ConsoleResponder } from './console-responder';

/** No console session cookie, or one that was signed out, revoked or has gone idle. */
class SignInRequired extends Error {}

/**
 * The console's credentials are checked before a form's body is read (contract §3 "credentials
 * before bodies"): Nest runs guards before the body-reading interceptor, so a post without a
 * live session is redirected to the sign-in page with its body never parsed.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(private readonly pages: ConsoleResponder) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!(await this.pages.admit(context.switchToHttp().getRequest<Request>()))) throw new SignInRequired();
    return true;
  }
}

@Catch(SignInRequired)
class SignInRedirect implements ExceptionFilter {
  catch(_: SignInRequired, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (!res.headersSent) sendPage(res, { kind: 'redirect', status: 303, location: '/admin/sign-in' });
  }
}

/** A console page controller: only for a signed-in session, checked before any body is read. */
export const SignedInPages = (): ClassDecorator =>
  applyDecorators(UseGuards(ConsoleSessionGuard), UseFilters(SignInRedirect));
