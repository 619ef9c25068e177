import { ApiProperty } from '@nestjs/swagger';
import { ChoiceField } from '../../common/validation/field-decorators';
import { LIMITS } from '../../common/validation/limits';
import { TransactionDto } from '../../transactions/dto/transaction.dto';
import { TRANSACTION_STATES, type TransactionState } from '../../transactions/transaction-state';
import type { SearchInput } from '../../transactions/transaction-search.service';
import { DateTimeField, IntField, NameField, PatternField } from './admin-fields';

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
export const INVALID_CURSOR = 'Invalid cursor: pass the "next" value of a previous page as is.';

/** `GET /b/checkout/v1/admin/pymt-txn/` (contract §18): every filter optional, all of them combined. */
export class TransactionSearchQueryDto {
  @ChoiceField(TRANSACTION_STATES, { optional: true, notNull: true })
  state?: TransactionState;

  @NameField(LIMITS.orderNo, { optional: true, description: 'Exact match' })
  order_no?: string;

  @NameField(LIMITS.customerEmail, {
    optional: true,
    description: 'Exact match, as the transaction holds it',
  })
  customer_email?: string;

  @DateTimeField({ optional: true, description: 'created_at at or after this instant' })
  created_after?: string;

  @DateTimeField({ optional: true, description: 'created_at strictly before this instant' })
  created_before?: string;

  @IntField(1, SEARCH_MAX_LIMIT, {
    optional: true,
    description: `Page size (default ${SEARCH_DEFAULT_LIMIT})`,
  })
  limit?: number;

  @PatternField(/^[A-Za-z0-9_-]{1,60}$/, 60, INVALID_CURSOR, {
    optional: true,
    description: 'The `next` of the previous page',
  })
  cursor?: string;
}

/** What the search service takes for a checked query (the admin API's and the console's). */
export function searchInputOf(query: TransactionSearchQueryDto, limit: number): SearchInput {
  return {
    filter: {
      state: query.state,
      orderNo: query.order_no,
      customerEmail: query.customer_email,
      createdFrom: query.created_after ? new Date(query.created_after) : undefined,
      createdBefore: query.created_before ? new Date(query.created_before) : undefined,
    },
    cursor: query.cursor,
    limit,
  };
}

/** A transaction as admins see it: the API representation, and whether it was deleted. */
export class AdminTransactionDto extends TransactionDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Set by the delete operation',
  })
  deleted_at: string | null;
}

export class TransactionPageDto {
  @ApiProperty({ type: AdminTransactionDto, isArray: true, description: 'Newest first' })
  results: AdminTransactionDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` for the next (older) page; null on the last page',
  })
  next: string | null;
}
