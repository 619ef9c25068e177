import { Injectable } from '@nestjs/common';
import { FieldErrors } from '../common/errors/domain-errors';
import type { TransactionDto } from './dto/transaction.dto';
import { decodeSearchCursor, encodeSearchCursor } from './search-cursor';
import { TransactionFilter, TransactionsRepository } from './transactions.repository';
import { TransactionsService } from './transactions.service';

export interface SearchInput {
  filter: TransactionFilter;
  /** The `next` of the previous page. */
  cursor?: string;
  limit: number;
}

export interface SearchPage {
  results: (TransactionDto & { deleted_at: string | null })[];
  next: string | null;
}

/** The admin transaction search (contract §18): newest first, keyset-paginated, deleted ones too. */
@Injectable()
export class TransactionSearchService {
  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly representations: TransactionsService,
  ) {}

  async search(input: SearchInput, invalidCursor: string): Promise<SearchPage> {
    const { createdFrom, createdBefore } = input.filter;
    if (createdFrom && createdBefore && createdFrom >= createdBefore) {
      throw new FieldErrors({ created_before: ['Must be later than created_after.'] });
    }
    const position = input.cursor === undefined ? null : decodeSearchCursor(input.cursor);
    if (input.cursor !== undefined && !position) throw new FieldErrors({ cursor: [invalidCursor] });
    // One row more than the page tells whether an older page exists.
    const rows = await this.transactions.search(input.filter, position, input.limit + 1);
    const page = rows.slice(0, input.limit);
    const results = await Promise.all(
      page.map(async (tx) => ({
        ...(await this.representations.represent(tx)).body,
        deleted_at: tx.deletedAt ? tx.deletedAt.toISOString() : null,
      })),
    );
    const last = page[page.length - 1];
    const next =
      rows.length > input.limit ? encodeSearchCursor({ createdAt: last.createdAt, id: last.id }) : null;
    return { results, next };
  }
}
