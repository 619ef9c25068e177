import { Controller, Get, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { toGatewayChanges, toGatewayDto, toNewGateway } from '../admin/admin.mapper';
import { AdminService } from '../admin/admin.service';
import { CreateGatewayDto, UpdateGatewayDto, type GatewayDto } from '../admin/dto/gateway.dto';
import { StateConflict } from '../common/errors/domain-errors';
import { GATEWAY_FLOWS, GATEWAY_OPERATIONS, GATEWAY_TYPES } from '../gateways/gateway.entity';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { GatewaysService } from '../gateways/gateways.service';
import {
  conflictState,
  submitForm,
  toFormValues,
  type FormFieldSpec,
  type FormState,
  type FormValues,
} from './console-forms';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { ConsoleForm, ConsolePage, SignedInPages } from './console-session.guard';
import {
  driverFieldsets,
  settingsFormValues,
  settingsFromForm,
  typedSettingsValues,
} from './gateway-settings-form';
import { listState, sendResourcePage, type ExtraFields } from './resource-pages';

/** The fields of a gateway an edit may change; `pgs`: the catalogue's drivers, the choices of `pg`. */
const editFields = (pgs: readonly string[]): FormFieldSpec[] => [
  { name: 'name', kind: 'text', required: true },
  { name: 'pg', kind: 'select', options: pgs, required: true },
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
/** The fields of a new gateway: its code, then what an edit may change. */
const withCode = (fields: FormFieldSpec[]): FormFieldSpec[] => [
  { name: 'code', kind: 'text', required: true },
  ...fields,
];
const NEW_GATEWAY: FormValues = {
  ...Object.fromEntries(withCode(editFields([])).map((f) => [f.name, f.kind === 'checkbox' ? false : ''])),
  pg: 'sandbox',
  type: 'sandbox',
  is_active: true,
};

/**
 * Gateways (contract §19): list, add, edit, delete (deactivated instead when transactions used it).
 * The form picks `pg` from the driver catalogue and shows that driver's settings (contract §20).
 */
@ApiExcludeController()
@SignedInPages()
@Controller('admin/gateways')
export class GatewaysPageController {
  private readonly editFields: FormFieldSpec[];
  private readonly fields: FormFieldSpec[];

  constructor(
    private readonly pages: ConsoleResponder,
    private readonly gateways: GatewaysService,
    private readonly admin: AdminService,
    private readonly drivers: GatewayDrivers,
  ) {
    this.editFields = editFields(drivers.names());
    this.fields = withCode(this.editFields);
  }

  @Get()
  async list(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const removed = { deleted: request.t.removed, deactivated: request.t.gatewayDeactivated };
    await this.renderList(res, request, listState(request.query, NEW_GATEWAY, removed));
  }

  @Post()
  async create(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const failed = await submitForm(request.body, this.fields, CreateGatewayDto, (body) =>
      this.admin.createGateway(
        toNewGateway(body),
        settingsFromForm(this.drivers.find(body.pg), request.body, null),
      ),
    );
    if (failed) return this.renderList(res, request, this.withTypedSettings(failed, request.body));
    this.pages.redirect(res, '/admin/gateways');
  }

  @Get(':code')
  async edit(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const gateway = await this.find(request.params.code);
    this.renderEdit(res, request, gateway, {
      status: 200,
      values: {
        ...toFormValues(this.editFields, { ...gateway }),
        ...settingsFormValues(gateway.pg, gateway),
      },
    });
  }

  @Post(':code')
  async update(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const gateway = await this.find(request.params.code);
    const failed = await submitForm(request.body, this.editFields, UpdateGatewayDto, (body) => {
      const pg = body.pg ?? gateway.pg;
      const stored = pg === gateway.pg ? gateway : null;
      const settings = settingsFromForm(this.drivers.find(pg), request.body, stored);
      return this.admin.updateGateway(gateway.code, toGatewayChanges(body), undefined, settings);
    });
    if (failed) return this.renderEdit(res, request, gateway, this.withTypedSettings(failed, request.body));
    this.pages.redirect(res, '/admin/gateways');
  }

  @Post(':code/delete')
  async remove(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const code = request.params.code;
    try {
      const removal = await this.admin.removeGateway(code);
      this.pages.redirect(res, `/admin/gateways?removed=${removal.result}`);
    } catch (error) {
      if (!(error instanceof StateConflict)) throw error;
      await this.renderList(res, request, conflictState(NEW_GATEWAY, error));
    }
  }

  /** The gateway, or NotFound (the console's 404 page). */
  private async find(code: string): Promise<GatewayDto> {
    return toGatewayDto(await this.gateways.get(code));
  }

  private async renderList(res: Response, request: ConsoleRequest, state: FormState): Promise<void> {
    const { t } = request;
    sendResourcePage<GatewayDto>(this.pages, res, request, state, {
      title: t.nav.gateways,
      path: '/admin/gateways',
      rows: (await this.gateways.list()).map(toGatewayDto),
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
      specs: this.fields,
      extra: this.settingsFields(request, null),
    });
  }

  private renderEdit(res: Response, request: ConsoleRequest, gateway: GatewayDto, state: FormState): void {
    sendResourcePage(this.pages, res, request, state, {
      title: `${request.t.nav.gateways}: ${gateway.code}`,
      path: `/admin/gateways/${encodeURIComponent(gateway.code)}`,
      specs: this.drivers.find(gateway.pg) ? this.editFields : this.withStoredPg(gateway.pg),
      extra: this.settingsFields(request, gateway),
    });
  }

  /** The driver settings' fieldsets, after the gateway's own fields. */
  private settingsFields({ t }: ConsoleRequest, gateway: GatewayDto | null): ExtraFields {
    const strings = { settingsOf: t.driverSettings, secretSet: t.secretSet, secretUnset: t.secretUnset };
    const stored = gateway ? { pg: gateway.pg, view: gateway } : null;
    return {
      html: (state) => driverFieldsets(this.drivers.list(), state.values, state.errors, stored, strings),
      errorKeys: ['settings'],
    };
  }

  /** The edit fields of a gateway whose stored pg names no driver: that pg stays a choice (unchanged). */
  private withStoredPg(pg: string): FormFieldSpec[] {
    return this.editFields.map((f) => (f.name === 'pg' ? { ...f, options: [pg, ...(f.options ?? [])] } : f));
  }

  /** A refused form shown again with the plain settings as typed (secrets are never shown again). */
  private withTypedSettings(state: FormState, body: unknown): FormState {
    return { ...state, values: { ...state.values, ...typedSettingsValues(this.drivers.list(), body) } };
  }
}
