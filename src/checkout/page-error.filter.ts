import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../common/errors/domain-errors';
import { stringsFor } from './i18n';
import { CsrfRejected } from './csrf';
import { sendPage } from './page-response';
import { errorPage } from './templates';

/** Errors on the pages are pages too (contract §1: "pages aside"), never JSON or internals. */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('CheckoutPages');

  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    if (res.headersSent) return;
    const t = stringsFor('en');
    let status = 500;
    let message = t.errorTitle;
    if (error instanceof CsrfRejected) {
      status = 403;
      message = t.formExpired;
    } else if (error instanceof DomainError) {
      status = error.status;
      message = status === 404 ? t.notFound : error.message;
    } else if (error instanceof HttpException) {
      status = error.getStatus();
      message = status === 404 ? t.notFound : error.message;
    } else {
      this.logger.error({ err: error, reqId: req.id }, 'Unhandled error on a page');
    }
    sendPage(res, { kind: 'html', status, html: errorPage(message, 'en', 'Checkout') });
  }
}
