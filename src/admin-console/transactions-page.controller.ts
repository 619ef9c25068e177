import { Controller, Get, Res } from '@nestjs/common';
import { Post } from '../common/http/body-routes';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  INVALID_CURSOR,
  searchInputOf,
  SEARCH_DEFAULT_LIMIT,
  TransactionSearchQueryDto,
} from '../admin/dto/transaction-search.dto';
import { formatAmount } from '../common/money/money';
import { FieldErrors, StateConflict, type FieldErrorTree } from '../common/errors/domain-errors';
import { EventsAdminService } from '../events/events-admin.service';
import { PaymentsService } from '../payments/payments.service';
import { TransactionSearchService, type SearchPage } from '../transactions/transaction-search.service';
import { TransactionsService } from '../transactions/transactions.service';
import { transactionBody, transactionsBody, type SearchForm } from './console-pages';
import { ConsoleResponder, type ConsoleRequest } from './console-responder';
import { ConsoleForm, ConsolePage, SignedInPages } from './console-session.guard';
import type { ConsoleFrame } from './console-templates';
import { formText, validateAs } from './form-validation';

const SEARCH_FIELDS = ['state', 'order_no', 'customer_email', 'created_after', 'created_before'] as const;

/** Transactions (contract §19): the §18 search, a transaction's page, "Redeliver". */
@ApiExcludeController()
@SignedInPages()
@Controller('admin/transactions')
export class TransactionsPageController {
  constructor(
    private readonly pages: ConsoleResponder,
    private readonly search: TransactionSearchService,
    private readonly transactions: TransactionsService,
    private readonly events: EventsAdminService,
    private readonly payments: PaymentsService,
  ) {}

  @Get()
  async list(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const texts: Record<string, string> = Object.fromEntries(
      SEARCH_FIELDS.map((f) => [f, formText(request.query, f)]),
    );
    const form = texts as unknown as SearchForm;
    const filters = Object.fromEntries(Object.entries(texts).filter(([, v]) => v.trim() !== ''));
    const cursor = formText(request.query, 'cursor');
    let page: SearchPage | null = null;
    let errors: FieldErrorTree | undefined;
    try {
      page = await this.find({ ...filters, ...(cursor ? { cursor } : {}) });
    } catch (error) {
      if (!(error instanceof FieldErrors)) throw error;
      errors = error.errors;
    }
    const next = page?.next
      ? `/admin/transactions?${new URLSearchParams({ ...filters, cursor: page.next }).toString()}`
      : null;
    const query = new URLSearchParams({ ...filters, ...(cursor ? { cursor } : {}) }).toString();
    this.pages.page(
      res,
      errors ? 400 : 200,
      request,
      { title: request.t.transactionsTitle, path: `/admin/transactions${query ? `?${query}` : ''}` },
      transactionsBody(request.language, form, page, next, errors),
    );
  }

  @Get(':sessionId')
  async show(@ConsolePage() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const sessionId = request.params.sessionId;
    const notice =
      request.query.redelivered === '1' ? { kind: 'ok' as const, text: request.t.redelivered } : null;
    await this.render(res, request, sessionId, 200, notice);
  }

  @Post(':sessionId/events/:eventId/redeliver')
  async redeliver(@ConsoleForm() request: ConsoleRequest, @Res() res: Response): Promise<void> {
    const { sessionId, eventId } = request.params;
    try {
      const tx = await this.transactions.getIncludingDeleted(sessionId);
      await this.events.redeliver(tx.id, eventId, tx.webhookUrl);
    } catch (error) {
      if (!(error instanceof StateConflict)) throw error;
      return this.render(res, request, sessionId, 409, { kind: 'error', text: request.t.noWebhookUrl });
    }
    this.pages.redirect(res, `/admin/transactions/${sessionId}?redelivered=1`);
  }

  /** The search as `GET admin/pymt-txn/` runs it: its DTO, its range rule, its cursor. */
  private async find(query: Record<string, string>): Promise<SearchPage> {
    const checked = await validateAs(TransactionSearchQueryDto, query);
    if (checked.errors) throw new FieldErrors(checked.errors);
    return this.search.search(searchInputOf(checked.value, SEARCH_DEFAULT_LIMIT), INVALID_CURSOR);
  }

  private async render(
    res: Response,
    request: ConsoleRequest,
    sessionId: string,
    status: number,
    notice: ConsoleFrame['notice'],
  ): Promise<void> {
    const tx = await this.transactions.getIncludingDeleted(sessionId);
    const [view, attempts, events] = await Promise.all([
      this.transactions.represent(tx),
      this.payments.attemptsOf(tx),
      this.events.list(tx.id),
    ]);
    const digits = (view.body.amount.split('.')[1] ?? '').length; // the currency's, as the representation has it
    const masked = attempts.map((a) => ({
      referenceNumber: a.referenceNumber,
      pgCode: a.pgCode,
      result: a.result,
      responseCode: a.responseCode,
      amount: formatAmount(a.amount, digits),
      currencyCode: a.currencyCode,
      card: a.card ? `${a.card.brand} **** ${a.card.last4}` : '',
      createdAt: a.createdAt,
    }));
    this.pages.page(
      res,
      status,
      request,
      {
        title: `${request.t.transactionTitle} ${tx.sessionId.slice(0, 8)}…`,
        path: `/admin/transactions/${tx.sessionId}`,
        notice,
      },
      transactionBody(
        request.language,
        request.csrf,
        { ...view.body, deleted_at: tx.deletedAt ? tx.deletedAt.toISOString() : null },
        masked,
        events,
      ),
    );
  }
}
