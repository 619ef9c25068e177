import { Body, Get, HttpCode, Param } from '@nestjs/common';
import { Delete, Patch, Post } from '../common/http/body-routes';
import type { Gateway } from '../gateways/gateway.entity';
import { GatewaySettings } from '../gateways/gateway-settings';
import { GatewaysService } from '../gateways/gateways.service';
import { AdminResource, CreateDocs, DeleteDocs, ListDocs, ReadDocs, UpdateDocs } from './admin-routes';
import { toGatewayChanges, toGatewayDto, toNewGateway } from './admin.mapper';
import { AdminService } from './admin.service';
import { CreateGatewayDto, GatewayDeletionDto, GatewayDto, UpdateGatewayDto } from './dto/gateway.dto';

const CODE_PARAM = { name: 'code', example: 'sandbox' };

@AdminResource('gateways')
export class GatewaysAdminController {
  constructor(
    private readonly gateways: GatewaysService,
    private readonly admin: AdminService,
    private readonly settings: GatewaySettings,
  ) {}

  /** The representation, with the secrets this service cannot decrypt (contract §20.1). */
  private represent(gateway: Gateway): GatewayDto {
    return { ...toGatewayDto(gateway), secrets_unreadable: this.settings.unreadableSecrets(gateway) };
  }

  @Get()
  @ListDocs({ summary: 'List the gateways', operationId: 'adminListGateways' }, GatewayDto)
  async list(): Promise<GatewayDto[]> {
    return (await this.gateways.list()).map((gateway) => this.represent(gateway));
  }

  @Post()
  @HttpCode(201)
  @CreateDocs(
    {
      summary: 'Add a gateway',
      description:
        'Defaults: operation `purchase`, fees "0", icon "", flow `redirect` (`offline` for pg `cash`), ' +
        'require_customer_phone false, is_active true, instructions "". A cash gateway is flow `offline`, ' +
        'operation `purchase` and not tokenizable. ' +
        'Every currency must be configured. A duplicate code → 400. `pg` names a driver of ' +
        "`GET gateway-drivers/`, and `settings` holds that driver's settings; secrets are write-only: " +
        'the answer lists their names in `secrets_set`. On MySQL with no SECRETS_KEY, a secret → 400.',
      operationId: 'adminCreateGateway',
    },
    GatewayDto,
    'Validation failed or duplicate code',
  )
  async create(@Body() body: CreateGatewayDto): Promise<GatewayDto> {
    const gateway = await this.admin.createGateway(toNewGateway(body), body.settings ?? undefined);
    return this.represent(gateway);
  }

  @Get(':code')
  @ReadDocs({ summary: 'Read a gateway', operationId: 'adminGetGateway' }, GatewayDto, CODE_PARAM)
  async get(@Param('code') code: string): Promise<GatewayDto> {
    return this.represent(await this.gateways.get(code));
  }

  @Patch(':code')
  @UpdateDocs(
    {
      summary: 'Change a gateway (partial)',
      description:
        'The code is immutable: sending a different `code` → 400. `settings` merges into the stored ' +
        'ones (a key left out keeps its value, secrets included; `null` removes an optional key).',
      operationId: 'adminUpdateGateway',
    },
    GatewayDto,
    CODE_PARAM,
  )
  async update(@Param('code') code: string, @Body() body: UpdateGatewayDto): Promise<GatewayDto> {
    const changes = toGatewayChanges(body);
    return this.represent(
      await this.admin.updateGateway(code, changes, body.code, body.settings ?? undefined),
    );
  }

  @Delete(':code')
  @DeleteDocs(
    {
      summary: 'Delete a gateway',
      description:
        'A gateway no transaction used is deleted; one that transactions used is deactivated instead ' +
        '(`result: "deactivated"`), so their representation keeps its payment method.',
      operationId: 'adminDeleteGateway',
    },
    CODE_PARAM,
    { ok: GatewayDeletionDto },
  )
  async remove(@Param('code') code: string): Promise<GatewayDeletionDto> {
    return this.admin.removeGateway(code);
  }
}
