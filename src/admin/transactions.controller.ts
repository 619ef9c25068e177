import { Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { FIELD_ERRORS_SCHEMA } from '../common/errors/error-body.dto';
import { TransactionSearchService } from '../transactions/transaction-search.service';
import { AdminResource } from './admin-routes';
import {
  INVALID_CURSOR,
  searchInputOf,
  SEARCH_DEFAULT_LIMIT,
  TransactionPageDto,
  TransactionSearchQueryDto,
} from './dto/transaction-search.dto';

@AdminResource('pymt-txn')
export class TransactionsAdminController {
  constructor(private readonly search: TransactionSearchService) {}

  @Get()
  @ApiOperation({
    summary: 'Search transactions, newest first',
    description:
      'Filters combine; `created_after` ≤ created_at < `created_before`. Pages are keyset cursors: pass `next` as `cursor` for the next, older page (stable while transactions are being created). Deleted transactions are included, with `deleted_at`.',
    operationId: 'adminSearchTransactions',
  })
  @ApiOkResponse({ type: TransactionPageDto })
  @ApiBadRequestResponse({
    schema: FIELD_ERRORS_SCHEMA,
    description: 'A filter, the limit or the cursor is invalid',
  })
  async list(@Query() query: TransactionSearchQueryDto): Promise<TransactionPageDto> {
    return this.search.search(searchInputOf(query, query.limit ?? SEARCH_DEFAULT_LIMIT), INVALID_CURSOR);
  }
}
