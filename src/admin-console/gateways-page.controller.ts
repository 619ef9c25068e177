import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { toGatewayChanges, toGatewayDto, toNewGateway } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateGatewayDto, UpdateGatewayDto, type GatewayDto } from '../admin/dto/gateway.dto';
import { FieldErrors, NotFound, StateConflict, type FieldErrorTree } from '../common/errors/domain-errors';
import { GATEWAY_FLOWS, GATEWAY_OPERATIONS, GATEWAY_TYPES } from '../gateways/gateway.entity';
import { GatewaysService } from '../gateways/gateways.service';
import { readForm, toApiInput, toFormValues, type FormFieldSpec, type FormValues } from './console-forms';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { SignedInPages } from './console-session.guard';
import type { ConsoleFrame } from './console-templates';
import { validateAs } from './form-validation';
import { resourceEditBody, resourceListBody } from './resource-pages';

const EDIT_FIELDS: FormFieldSpec[] = [
  { name: 'name', kind: 'text', required: true },
  { name: 'pg', kind: 'text', required: true },
  { name: 'type', kind: 'select', options: GATEWAY_TYPES, required: true },
  { name: 'operation', kind: 'select', options: GATEWAY_OPERATIONS },
  { name: 'currencies', kind: 'list' },
  { name: 'fee_fixed', kind: 'text' },
  { name: 'fee_percent', kind: 'text' },
  { name: 'icon', kind: 'text', emptyIsValue: true },
  { name: 'flow', kind: 'select', options: GATEWAY_FLOWS },
  { name: 'instructions', kind: 'text', emptyIsValue: true },
  { name: 'require_customer_phone', kind: 'checkbox' },
  { name: 'tokenizable', kind: 'checkbox' },
  { name: 'is_active', kind: 'checkbox' },
];
const FIELDS: FormFieldSpec[] = [{ name: 'code', kind: 'text', required: true }, ...EDIT_FIELDS];
const NEW_GATEWAY: FormValues = {
  ...Object.fromEntries(FIELDS.map((f) => [f.name, f.kind === 'checkbox' ? false : ''])),
  type: 'sandbox',
  is_active: true,
};

/** Gateways (contract §19): list, add, edit, delete (deactivated instead when transactions used it). */
@ApiExcludeController()
@SignedInPages()
@Controller('admin/gateways')
export class GatewaysPageController {
  constructor(
    private readonly pages: ConsoleResponder,
    private readonly gateways: GatewaysService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  async list(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.pages.signedIn(req, res);
    if (!request) return;
    const removed = req.query.removed;
    const notice =
      removed === 'deleted'
        ? { kind: 'ok' as const, text: request.t.removed }
        : removed === 'deactivated'
          ? { kind: 'ok' as const, text: request.t.gatewayDeactivated }
          : null;
    await this.renderList(res, request, 200, NEW_GATEWAY, undefined, notice);
  }

  @Post()
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    const values = readForm(FIELDS, req.body);
    const checked = await validateAs(CreateGatewayDto, toApiInput(FIELDS, values));
    if (checked.errors) return this.renderList(res, request, 400, values, checked.errors);
    const body = checked.value;
    try {
      await this.admin.createGateway(toNewGateway(body));
    } catch (error) {
      if (!(error instanceof FieldErrors)) throw error;
      return this.renderList(res, request, 400, values, error.errors);
    }
    this.pages.redirect(res, '/admin/gateways');
  }

  @Get(':code')
  async edit(@Req() req: Request, @Res() res: Response, @Param('code') code: string): Promise<void> {
    const request = await this.pages.signedIn(req, res);
    if (!request) return;
    const gateway = await this.find(code);
    if (!gateway) return this.pages.notFound(req, res, request);
    this.renderEdit(res, request, 200, gateway, toFormValues(EDIT_FIELDS, { ...gateway }));
  }

  @Post(':code')
  async update(@Req() req: Request, @Res() res: Response, @Param('code') code: string): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    const gateway = await this.find(code);
    if (!gateway) return this.pages.notFound(req, res, request);
    const values = readForm(EDIT_FIELDS, req.body);
    const checked = await validateAs(UpdateGatewayDto, toApiInput(EDIT_FIELDS, values));
    if (checked.errors) return this.renderEdit(res, request, 400, gateway, values, checked.errors);
    try {
      await this.admin.updateGateway(gateway.code, toGatewayChanges(checked.value));
    } catch (error) {
      if (!(error instanceof FieldErrors)) throw error;
      return this.renderEdit(res, request, 400, gateway, values, error.errors);
    }
    this.pages.redirect(res, '/admin/gateways');
  }

  @Post(':code/delete')
  async remove(@Req() req: Request, @Res() res: Response, @Param('code') code: string): Promise<void> {
    const request = await this.pages.signedIn(req, res, true);
    if (!request) return;
    try {
      const removal = await this.admin.removeGateway(code);
      this.pages.redirect(res, `/admin/gateways?removed=${removal.result}`);
    } catch (error) {
      if (error instanceof NotFound) return this.pages.notFound(req, res, request);
      if (!(error instanceof StateConflict)) throw error;
      await this.renderList(res, request, 409, NEW_GATEWAY, undefined, {
        kind: 'error',
        text: error.message,
      });
    }
  }

  private async find(code: string): Promise<GatewayDto | null> {
    try {
      return toGatewayDto(await this.gateways.get(code));
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
  }

  private async renderList(
    res: Response,
    request: ConsoleRequest,
    status: number,
    values: FormValues,
    errors?: FieldErrorTree,
    notice: ConsoleFrame['notice'] = null,
  ): Promise<void> {
    const { t } = request;
    const rows = (await this.gateways.list()).map(toGatewayDto);
    this.pages.page(
      res,
      status,
      request,
      {
        title: t.nav.gateways,
        path: '/admin/gateways',
        notice: errors ? { kind: 'error', text: t.fixErrors } : notice,
      },
      resourceListBody<GatewayDto>({
        t,
        csrf: request.csrf,
        rows,
        columns: [
          { label: t.labels.code, value: (g) => g.code },
          { label: t.labels.name, value: (g) => g.name },
          { label: t.labels.pg, value: (g) => g.pg },
          { label: t.labels.operation, value: (g) => g.operation },
          { label: t.labels.currencies, value: (g) => g.currencies.join(', ') },
          { label: t.labels.is_active, value: (g) => (g.is_active ? t.yes : t.no) },
        ],
        rowName: (g) => g.code,
        editHref: (g) => `/admin/gateways/${encodeURIComponent(g.code)}`,
        createAction: '/admin/gateways',
        specs: FIELDS,
        values,
        errors,
      }),
    );
  }

  private renderEdit(
    res: Response,
    request: ConsoleRequest,
    status: number,
    gateway: GatewayDto,
    values: FormValues,
    errors?: FieldErrorTree,
  ): void {
    const { t } = request;
    const path = `/admin/gateways/${encodeURIComponent(gateway.code)}`;
    this.pages.page(
      res,
      status,
      request,
      {
        title: `${t.nav.gateways}: ${gateway.code}`,
        path,
        notice: errors ? { kind: 'error', text: t.fixErrors } : null,
      },
      resourceEditBody({
        t,
        csrf: request.csrf,
        action: path,
        deleteAction: `${path}/delete`,
        specs: EDIT_FIELDS,
        values,
        errors,
      }),
    );
  }
}
