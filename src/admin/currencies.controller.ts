import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AdminOnly } from '../auth/authenticated.decorator';
import { DetailDto, FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { CurrenciesService } from '../currencies/currencies.service';
import { toCurrencyDto } from './admin.mapper';
import { AdminService } from './admin.service';
import { CreateCurrencyDto, CurrencyDto } from './dto/currency.dto';

@ApiTags('Admin')
@AdminOnly()
@Controller('b/checkout/v1/admin/currencies')
export class CurrenciesAdminController {
  constructor(
    private readonly currencies: CurrenciesService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the configured currencies', operationId: 'adminListCurrencies' })
  @ApiOkResponse({ type: CurrencyDto, isArray: true })
  async list(): Promise<CurrencyDto[]> {
    return (await this.currencies.list()).map(toCurrencyDto);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add a currency',
    description:
      '`digits` defaults to the ISO 4217 minor unit; a code ISO does not know needs it. A duplicate → 400.',
    operationId: 'adminCreateCurrency',
  })
  @ApiCreatedResponse({ type: CurrencyDto })
  @ApiBadRequestResponse({ schema: FIELD_ERRORS_SCHEMA, description: 'Validation failed or duplicate code' })
  async create(@Body() body: CreateCurrencyDto): Promise<CurrencyDto> {
    return toCurrencyDto(await this.currencies.create(body.code, body.digits));
  }

  @Delete(':code')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a currency',
    description: 'Refused with 409 while a gateway lists it or a transaction is in it.',
    operationId: 'adminDeleteCurrency',
  })
  @ApiParam({ name: 'code', example: 'KWD', description: 'Any case' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ type: DetailDto })
  @ApiConflictResponse({ type: DetailDto, description: 'Still used by a gateway or a transaction' })
  async remove(@Param('code') code: string): Promise<void> {
    await this.admin.removeCurrency(code);
  }
}
