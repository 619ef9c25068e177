import { Body, Get, HttpCode, Param } from '@nestjs/common';
import { Delete, Post } from '../common/http/body-routes';
import { CurrenciesService } from '../currencies/currencies.service';
import { AdminResource, CreateDocs, DeleteDocs, ListDocs } from './admin-routes';
import { toCurrencyDto } from './admin.mapper';
import { AdminService } from './admin.service';
import { CreateCurrencyDto, CurrencyDto } from './dto/currency.dto';

@AdminResource('currencies')
export class CurrenciesAdminController {
  constructor(
    private readonly currencies: CurrenciesService,
    private readonly admin: AdminService,
  ) {}

  @Get()
  @ListDocs({ summary: 'List the configured currencies', operationId: 'adminListCurrencies' }, CurrencyDto)
  async list(): Promise<CurrencyDto[]> {
    return (await this.currencies.list()).map(toCurrencyDto);
  }

  @Post()
  @HttpCode(201)
  @CreateDocs(
    {
      summary: 'Add a currency',
      description:
        '`digits` defaults to the ISO 4217 minor unit; a code ISO does not know needs it. A duplicate → 400.',
      operationId: 'adminCreateCurrency',
    },
    CurrencyDto,
    'Validation failed or duplicate code',
  )
  async create(@Body() body: CreateCurrencyDto): Promise<CurrencyDto> {
    return toCurrencyDto(await this.currencies.create(body.code, body.digits));
  }

  @Delete(':code')
  @HttpCode(204)
  @DeleteDocs(
    {
      summary: 'Delete a currency',
      description: 'Refused with 409 while a gateway lists it or a transaction is in it.',
      operationId: 'adminDeleteCurrency',
    },
    { name: 'code', example: 'KWD', description: 'Any case' },
    { noContent: 'Deleted', conflict: 'Still used by a gateway or a transaction' },
  )
  async remove(@Param('code') code: string): Promise<void> {
    await this.admin.removeCurrency(code);
  }
}
