import { Body, Controller, Get, Param, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { NotFound } from '../common/errors/domain-errors';
import { CARD_ICON_SVG, STYLESHEET } from './assets';
import { CheckoutPagesService } from './checkout-pages.service';
import { CsrfGuard, issueCsrfToken, readCookie, CSRF_COOKIE } from './csrf';
import { PageErrorFilter } from './page-error.filter';
import { sendPage } from './page-response';

const ICON_FILE = /^[a-z0-9_-]{1,64}\.svg$/;

/** The hosted pages (contract §9). Server-rendered HTML; not part of the JSON API's OpenAPI document. */
@ApiExcludeController()
@Controller('b/checkout')
@UseFilters(PageErrorFilter)
export class CheckoutPagesController {
  constructor(private readonly pages: CheckoutPagesService) {}

  @Get('redirect/start')
  async start(@Query('session_id') sessionId: unknown, @Res() res: Response): Promise<void> {
    sendPage(res, await this.pages.start(sessionId));
  }

  @Get('txn/:session_id')
  async checkout(
    @Param('session_id') sessionId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const token = issueCsrfToken(req, res, this.pages.secureCookies);
    sendPage(res, await this.pages.checkout(sessionId, token));
  }

  @Post('txn/:session_id/cancel')
  @UseGuards(CsrfGuard)
  async cancel(
    @Param('session_id') sessionId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.pages.cancel(sessionId, readCookie(req, CSRF_COOKIE) ?? ''));
  }

  @Get('qr/:file')
  async qrCode(@Param('file') file: string, @Res() res: Response): Promise<void> {
    const png = await this.pages.qrCode(file);
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('image/png').send(png);
  }

  @Get('pay/:pg_code')
  async paymentForm(
    @Param('pg_code') pgCode: string,
    @Query('session_id') sessionId: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const token = issueCsrfToken(req, res, this.pages.secureCookies);
    sendPage(res, await this.pages.paymentForm(sessionId, pgCode, token));
  }

  @Post('pay/:pg_code')
  @UseGuards(CsrfGuard)
  async pay(
    @Param('pg_code') pgCode: string,
    @Query('session_id') sessionId: unknown,
    @Body() body: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.pages.pay(sessionId, pgCode, body, readCookie(req, CSRF_COOKIE) ?? ''));
  }

  /**
   * The customer back from a provider's page (contract §20): `GET` or `POST` (a provider may post
   * its result). Only the attempt's reference is read from what the browser brings.
   */
  @Get('v1/gateways/:code/return')
  async returnedByGet(
    @Param('code') code: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.pages.returned(code, textParams(query)));
  }

  @Post('v1/gateways/:code/return')
  async returnedByPost(
    @Param('code') code: string,
    @Query() query: Record<string, unknown>,
    @Body() body: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const form = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    sendPage(res, await this.pages.returned(code, { ...textParams(form), ...textParams(query) }));
  }

  @Get('static/checkout.css')
  stylesheet(@Res() res: Response): void {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('text/css').send(STYLESHEET);
  }

  @Get('static/icons/:file')
  icon(@Param('file') file: string, @Res() res: Response): void {
    if (!ICON_FILE.test(file)) throw new NotFound();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.type('image/svg+xml').send(CARD_ICON_SVG);
  }
}

/** The string parameters of a query or form (anything else is not ours to read). */
function textParams(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
