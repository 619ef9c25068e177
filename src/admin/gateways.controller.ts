import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AdminOnly } from '../auth/authenticated.decorator';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import type { GatewayFlow, GatewayOperation, GatewayType } from '../gateways/gateway.entity';
import type { GatewayInput } from '../gateways/gateways.service';
import { GatewaysService } from '../gateways/gateways.service';
import { definedOnly, toGatewayDto } from './admin.mapper';
import { AdminService } from './admin.service';
import { CreateGatewayDto, GatewayDeletionDto, GatewayDto, UpdateGatewayDto } from './dto/gateway.dto';

const CODE_PARAM = { name: 'code', example: 'sandbox' };

/** API field names → the service's input (only the fields sent). */
function toGatewayChanges(body: UpdateGatewayDto): Partial<Omit<GatewayInput, 'code'>> {
  return definedOnly({
    name: body.name,
    pg: body.pg,
    type: body.type as GatewayType | undefined,
    operation: body.operation as GatewayOperation | undefined,
    currencies: body.currencies,
    feeFixed: body.fee_fixed,
    feePercent: body.fee_percent,
    icon: body.icon,
    flow: body.flow as GatewayFlow | undefined,
    requireCustomerPhone: body.require_customer_phone,
    isActive: body.is_active,
  });
}

@ApiTags('Admin')
@AdminOnly()
@Controller('b/checkout/v1/admin/gateways')
export class GatewaysAdminController {
  constructor(
    private readonly gateways: GatewaysService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the gateways', operationId: 'adminListGateways' })
  @ApiOkResponse({ type: GatewayDto, isArray: true })
  async list(): Promise<GatewayDto[]> {
    return (await this.gateways.list()).map(toGatewayDto);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add a gateway',
    description:
      'Defaults: operation `purchase`, fees "0", icon "", flow `redirect`, require_customer_phone false, is_active true. ' +
      'Every currency must be configured. A duplicate code → 400.',
    operationId: 'adminCreateGateway',
  })
  @ApiCreatedResponse({ type: GatewayDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Validation failed or duplicate code' })
  async create(@Body() body: CreateGatewayDto): Promise<GatewayDto> {
    const gateway = await this.admin.createGateway({
      ...toGatewayChanges(body),
      code: body.code,
      name: body.name,
      pg: body.pg,
      type: body.type as GatewayType,
      currencies: body.currencies,
    });
    return toGatewayDto(gateway);
  }

  @Get(':code')
  @ApiOperation({ summary: 'Read a gateway', operationId: 'adminGetGateway' })
  @ApiParam(CODE_PARAM)
  @ApiOkResponse({ type: GatewayDto })
  @ApiNotFoundResponse({ type: DetailDto })
  async get(@Param('code') code: string): Promise<GatewayDto> {
    return toGatewayDto(await this.gateways.get(code));
  }

  @Patch(':code')
  @ApiOperation({
    summary: 'Change a gateway (partial)',
    description: 'The code is immutable: sending a different `code` → 400.',
    operationId: 'adminUpdateGateway',
  })
  @ApiParam(CODE_PARAM)
  @ApiOkResponse({ type: GatewayDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Validation failed: field → messages' })
  @ApiNotFoundResponse({ type: DetailDto })
  async update(@Param('code') code: string, @Body() body: UpdateGatewayDto): Promise<GatewayDto> {
    return toGatewayDto(await this.admin.updateGateway(code, toGatewayChanges(body), body.code));
  }

  @Delete(':code')
  @ApiOperation({
    summary: 'Delete a gateway',
    description:
      'A gateway no transaction used is deleted; one that transactions used is deactivated instead ' +
      '(`result: "deactivated"`), so their representation keeps its payment method.',
    operationId: 'adminDeleteGateway',
  })
  @ApiParam(CODE_PARAM)
  @ApiOkResponse({ type: GatewayDeletionDto })
  @ApiNotFoundResponse({ type: DetailDto })
  async remove(@Param('code') code: string): Promise<GatewayDeletionDto> {
    return this.admin.removeGateway(code);
  }
}
