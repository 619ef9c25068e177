import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { toCurrencyDto } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateCurrencyDto, type CurrencyDto } from '../admin/dto/currency.dto';
import { NotFound, StateConflict } from '../common/errors/domain-errors';
import { CurrenciesService } from '../currencies/currencies.service';
import {
  conflictState,
  submitForm,
  type FormFieldSpec,
  type FormState,
  type FormValues,
} from './console-forms';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { SignedInPages } from './console-session.guard';
import { listState, sendResourcePage } from './resource-pages';

const FIELDS: FormFieldSpec[] = [
  { name: 'code', kind: 'text', required: true },
  { name: 'digits', kind: 'text' },
];
const EMPTY_FORM: FormValues = { code: '', digits: '' };

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
    await this.render(res, request, listState(req.query, EMPTY_FORM, { '1': request.t.removed }));
  }

  @Post()
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    const failed = await submitForm(req.body, FIELDS, CreateCurrencyDto, (body) =>
      this.currencies.create(body.code, body.digits),
    );
    if (failed) return this.render(res, request, failed);
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
      return this.render(res, request, conflictState(EMPTY_FORM, error));
    }
    this.pages.redirect(res, '/admin/currencies?removed=1');
  }

  private async render(res: Response, request: ConsoleRequest, state: FormState): Promise<void> {
    const { t } = request;
    sendResourcePage<CurrencyDto>(this.pages, res, request, state, {
      title: t.nav.currencies,
      path: '/admin/currencies',
      rows: (await this.currencies.list()).map(toCurrencyDto),
      columns: [
        { label: t.labels.code, value: (c) => c.code },
        { label: t.labels.digits, value: (c) => String(c.digits) },
      ],
      rowName: (c) => c.code,
      deleteAction: (c) => `/admin/currencies/${encodeURIComponent(c.code)}/delete`,
      specs: FIELDS,
    });
  }
}
