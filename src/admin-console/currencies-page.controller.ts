import { Controller, Get, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { toCurrencyDto } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateCurrencyDto, type CurrencyDto } from '../admin/dto/currency.dto';
import { StateConflict } from '../common/errors/domain-errors';
import { CurrenciesService } from '../currencies/currencies.service';
import {
  conflictState,
  submitForm,
  type FormFieldSpec,
  type FormState,
  type FormValues,
} from './console-forms';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { ConsoleForm, ConsolePage, SignedInPages } from './console-session.guard';
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
  async list(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    await this.render(res, request, listState(request.query, EMPTY_FORM, { '1': request.t.removed }));
  }

  @Post()
  async create(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const failed = await submitForm(request.body, FIELDS, CreateCurrencyDto, (body) =>
      this.currencies.create(body.code, body.digits),
    );
    if (failed) return this.render(res, request, failed);
    this.pages.redirect(res, '/admin/currencies');
  }

  @Post(':code/delete')
  async remove(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const code = request.params.code;
    try {
      await this.admin.removeCurrency(code);
    } catch (error) {
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
