import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { toCurrencyDto } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateCurrencyDto, type CurrencyDto } from '../admin/dto/currency.dto';
import { FieldErrors, NotFound, StateConflict, type FieldErrorTree } from '../common/errors/domain-errors';
import { CurrenciesService } from '../currencies/currencies.service';
import { readForm, toApiInput, type FormFieldSpec, type FormValues } from './console-forms';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { SignedInPages } from './console-session.guard';
import type { ConsoleFrame } from './console-templates';
import { validateAs } from './form-validation';
import { resourceListBody } from './resource-pages';

const FIELDS: FormFieldSpec[] = [
  { name: 'code', kind: 'text', required: true },
  { name: 'digits', kind: 'text' },
];

/** Currencies (contract §19): list, add, delete — as the admin API does. */
@ApiExcludeController()
@SignedInPages()
@Controller('admin/currencies')
export class CurrenciesPageController {
  constructor(
    private readonly pages: ConsoleResponder,
    private readonly currencies: CurrenciesService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  async list(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.pages.signedIn(req, res);
    if (!request) return;
    const notice = req.query.removed === '1' ? { kind: 'ok' as const, text: request.t.removed } : null;
    await this.render(res, request, 200, { code: '', digits: '' }, undefined, notice);
  }

  @Post()
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    const values = readForm(FIELDS, req.body);
    const checked = await validateAs(CreateCurrencyDto, toApiInput(FIELDS, values));
    if (checked.errors) return this.render(res, request, 400, values, checked.errors);
    try {
      await this.currencies.create(checked.value.code, checked.value.digits);
    } catch (error) {
      if (!(error instanceof FieldErrors)) throw error;
      return this.render(res, request, 400, values, error.errors);
    }
    this.pages.redirect(res, '/admin/currencies');
  }

  @Post(':code/delete')
  async remove(@Req() req: Request, @Res() res: Response, @Param('code') code: string): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    try {
      await this.admin.removeCurrency(code);
    } catch (error) {
      if (error instanceof NotFound) return this.pages.notFound(req, res, request);
      if (!(error instanceof StateConflict)) throw error;
      const notice = { kind: 'error' as const, text: error.message };
      return this.render(res, request, 409, { code: '', digits: '' }, undefined, notice);
    }
    this.pages.redirect(res, '/admin/currencies?removed=1');
  }

  private async render(
    res: Response,
    request: ConsoleRequest,
    status: number,
    values: FormValues,
    errors?: FieldErrorTree,
    notice: ConsoleFrame['notice'] = null,
  ): Promise<void> {
    const { t } = request;
    const rows = (await this.currencies.list()).map(toCurrencyDto);
    this.pages.page(
      res,
      status,
      request,
      {
        title: t.nav.currencies,
        path: '/admin/currencies',
        notice: errors ? { kind: 'error', text: t.fixErrors } : notice,
      },
      resourceListBody<CurrencyDto>({
        t,
        csrf: request.csrf,
        rows,
        columns: [
          { label: t.labels.code, value: (c) => c.code },
          { label: t.labels.digits, value: (c) => String(c.digits) },
        ],
        rowName: (c) => c.code,
        deleteAction: (c) => `/admin/currencies/${encodeURIComponent(c.code)}/delete`,
        createAction: '/admin/currencies',
        specs: FIELDS,
        values,
        errors,
      }),
    );
  }
}
