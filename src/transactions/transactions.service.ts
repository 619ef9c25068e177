import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { FieldErrors, NotFound, PreconditionFailed, StateConflict } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';
import { CurrenciesService } from '../currencies/currencies.service';
import { isUniqueViolation, violatedKey } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { GatewaysService } from '../gateways/gateways.service';
import { mayUseGateway, type Principal } from '../auth/principal';
import type { TransactionDto } from './dto/transaction.dto';
import type { TransactionBody } from './transaction-body';
import { etagOf, ifMatchAllows, noneMatchHolds } from './etag';
import { TransactionEvents } from './events/transaction-events';
import { Transaction } from './transaction.entity';
import { mergeRequestFields, toRequestFields } from './request-fields';
import { columnsFromInput } from './transaction-columns';
import { toTransactionDto } from './transaction.mapper';
import { isPayable, PAYABLE_STATES, type TransactionState } from './transaction-state';
import { AttachmentChange, TransactionAttachments } from './transaction-attachment';
import { TransactionValidator } from './transaction-validator';
import { TransactionsRepository } from './transactions.repository';

/** A representation plus its ETag. */
export interface TransactionView {
  body: TransactionDto;
  etag: string;
}

const UPDATE_ATTEMPTS = 3;
export const ATTEMPT_HOLDS_IT = 'A payment attempt for this transaction is in progress; retry shortly.';
/** Thrown inside an update's database transaction when the row changed meanwhile. */
const NOT_WRITTEN = new Error('not written');

/** Create, update and retrieve (contract §4). */
export interface UpdateOptions {
  /** The ETag the caller read (If-Match): a stale one is refused with 412. */
  ifMatch?: string;
  mode: 'partial' | 'full';
}

/**
 * Whether `caller` may see `tx` at all (no caller: the service itself, or a public route). A
 * transaction on a gateway the caller may not use does not exist for it: every route answers it
 * as an unknown one (contract §3: permissions reveal nothing).
 */
function visibleTo(caller: Principal | undefined, tx: Transaction): boolean {
  return !caller || mayUseGateway(caller, tx.pgCode);
}

@Injectable()
export class TransactionsService {
  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly validator: TransactionValidator,
    private readonly currencies: CurrenciesService,
    private readonly gateways: GatewaysService,
    private readonly config: AppConfig,
    private readonly events: TransactionEvents,
    private readonly attachments: TransactionAttachments,
    private readonly uow: UnitOfWork,
  ) {}

  async create(principal: Principal, body: TransactionBody): Promise<TransactionView> {
    const attachment = await this.attachments.receive(body);
    return this.attachments.settling(attachment, () => this.createWith(principal, body, attachment));
  }

  private async createWith(
    principal: Principal,
    body: TransactionBody,
    attachment: AttachmentChange,
  ): Promise<TransactionView> {
    const { dto, gateway, currency } = await this.attachments.validate(attachment, () =>
      this.validator.validate(body.fields, {
        principal,
        hasAttachment: this.attachments.hasAttachment(attachment, null),
      }),
    );
    const now = new Date();
    const columns = columnsFromInput(dto, gateway.operation);
    const draft = Object.assign(new Transaction(), columns, {
      sessionId: randomBytes(20).toString('hex'),
      state: 'created',
      version: 1,
      liveOrderNo: columns.orderNo ?? null,
      checkoutShortUrl: '',
      attachmentShortUrl: '',
      attachmentToken: null,
      attachmentName: null,
      initiatorId: principal.kind === 'user' ? principal.userId : null,
      apiKeyId: principal.kind === 'api-key' ? principal.apiKeyId : null,
      remarks: null,
      paidAmount: '0',
      capturedAmount: '0',
      refundedAmount: '0',
      voidedAmount: '0',
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + columns.expirationSeconds! * 1000),
      attemptInFlight: null,
      eventSequence: 1, // its `created` event, recorded in the same unit
      deletedAt: null,
      qrCodeToken: columns.qrCodeToken ?? null,
    } satisfies Partial<Transaction>);
    let tx = draft;
    try {
      await this.uow.run(async (manager) => {
        // Built afresh on every run of the unit (a retried run starts from the draft again).
        tx = Object.assign(new Transaction(), draft);
        Object.assign(tx, await this.attachments.apply(manager, attachment, draft, draft));
        await this.transactions.insert(tx, manager);
        await this.events.recordCreated(manager, tx);
      });
    } catch (error) {
      throw translateUniqueViolation(error);
    }
    return this.view(tx, { gateway, digits: currency.digits });
  }

  /**
   * PATCH (`partial`: sent fields change, the rest stay) or PUT (`full`: the body is the whole
   * input, optional fields left out go back to their defaults) — contract §4, §16.
   */
  async update(
    sessionId: string,
    principal: Principal,
    body: TransactionBody,
    options: UpdateOptions = { mode: 'partial' },
  ): Promise<TransactionView> {
    const attachment = await this.attachments.receive(body);
    return this.attachments.settling(attachment, () =>
      this.updateWith(sessionId, principal, body, attachment, options),
    );
  }

  private async updateWith(
    sessionId: string,
    principal: Principal,
    body: TransactionBody,
    attachment: AttachmentChange,
    { ifMatch, mode }: UpdateOptions,
  ): Promise<TransactionView> {
    for (let attempt = 1; ; attempt++) {
      const tx = await this.get(sessionId);
      if (ifMatch !== undefined && !ifMatchAllows(ifMatch, etagOf(tx))) throw new PreconditionFailed();
      if (!isPayable(tx.state)) {
        throw new StateConflict(`A transaction in state "${tx.state}" can no longer be updated.`);
      }
      // The gateway is charging the stored amount right now (contract §17).
      if (tx.attemptInFlight) throw new StateConflict(ATTEMPT_HOLDS_IT);
      const merged = mode === 'full' ? body.fields : mergeRequestFields(toRequestFields(tx), body.fields);
      const { dto, gateway, currency } = await this.attachments.validate(attachment, () =>
        this.validator.validate(merged, {
          principal,
          existingId: tx.id,
          hasAttachment: this.attachments.hasAttachment(attachment, tx),
        }),
      );
      const columns = columnsFromInput(dto, gateway.operation);
      const now = new Date();
      const changes: Partial<Transaction> = {
        ...columns,
        liveOrderNo: columns.orderNo ?? null,
        updatedAt: now,
        expiresAt: new Date(tx.createdAt.getTime() + columns.expirationSeconds! * 1000),
      };
      let written: boolean;
      try {
        written = await this.uow.run(async (manager) => {
          Object.assign(changes, await this.attachments.apply(manager, attachment, tx, columns));
          if (await this.transactions.updateIfCurrent(tx.id, tx.version, PAYABLE_STATES, changes, manager)) {
            return true;
          }
          throw NOT_WRITTEN; // roll back what apply() wrote
        });
      } catch (error) {
        if (error !== NOT_WRITTEN) throw translateUniqueViolation(error);
        written = false;
      }
      if (written) {
        const updated = Object.assign(tx, changes, { version: tx.version + 1 });
        return this.view(updated, { gateway, digits: currency.digits });
      }
      // Another writer changed the row between our read and write: re-read and decide again.
      if (ifMatch !== undefined) throw new PreconditionFailed();
      if (attempt >= UPDATE_ATTEMPTS)
        throw new StateConflict('The transaction is being changed by another request; retry.');
    }
  }

  /**
   * A conditional retrieve: only the ETag when `ifNoneMatch` names the current one (the client's
   * copy is current: 304, nothing represented), else the representation too.
   */
  async retrieveUnlessCurrent(
    sessionId: string,
    ifNoneMatch: string | undefined,
  ): Promise<{ etag: string; view: TransactionView | null }> {
    const tx = await this.get(sessionId);
    const etag = etagOf(tx);
    if (ifNoneMatch !== undefined && noneMatchHolds(ifNoneMatch, etag)) return { etag, view: null };
    return { etag, view: await this.represent(tx) };
  }

  /** The representation (and ETag) of a row the caller already holds. */
  async represent(tx: Transaction): Promise<TransactionView> {
    const [gateway, currency] = await Promise.all([
      this.gateways.lookup(tx.pgCode),
      this.currencies.lookup(tx.currencyCode),
    ]);
    return this.view(tx, { gateway, digits: currency?.digits ?? 2 });
  }

  /** Whether deleting the gateway would orphan transactions (admin: deactivate instead). */
  usesGateway(pgCode: string): Promise<boolean> {
    return this.transactions.usesGateway(pgCode);
  }

  /** Hides a transaction (the `delete` operation, contract §16); see {@link TransactionsRepository.hide}. */
  hide(
    id: string,
    states: readonly TransactionState[],
    now: Date,
    manager?: EntityManager,
  ): Promise<boolean> {
    return this.transactions.hide(id, states, now, manager);
  }

  /** Whether deleting the currency would leave transactions without their digits. */
  usesCurrency(currencyCode: string): Promise<boolean> {
    return this.transactions.usesCurrency(currencyCode);
  }

  /** The transaction of a session id; NotFound (404) when unknown, malformed or deleted. */
  async get(sessionId: string, caller?: Principal): Promise<Transaction> {
    const tx = await this.getIncludingDeleted(sessionId);
    if (tx.deletedAt || !visibleTo(caller, tx)) throw new NotFound();
    return tx;
  }

  /** {@link get} that also finds deleted transactions (admins still see them, contract §16). */
  async getIncludingDeleted(sessionId: string): Promise<Transaction> {
    const tx = /^[0-9a-f]{40}$/.test(sessionId) ? await this.transactions.findBySessionId(sessionId) : null;
    if (!tx) throw new NotFound();
    return tx;
  }

  /** The transaction whose `qr_code_url` carries this token (404 when none). */
  async getByQrCodeToken(token: string): Promise<Transaction> {
    const tx = /^[A-Za-z0-9_-]{32}$/.test(token) ? await this.transactions.findByQrCodeToken(token) : null;
    if (!tx || tx.deletedAt) throw new NotFound();
    return tx;
  }

  /** The transaction with this row id, or null. */
  findById(id: string): Promise<Transaction | null> {
    return this.transactions.findById(id);
  }

  /**
   * The live (else the most recent) transaction with this order_no among those `caller` may see
   * ({@link visibleTo}); NotFound when none. Surrounding spaces are not part of an order_no (as on create); the rest compares
   * exactly.
   */
  async getByOrderNo(orderNo: string, caller?: Principal): Promise<Transaction> {
    orderNo = orderNo.trim();
    if (!orderNo) throw new NotFound();
    const found = (await this.transactions.findByOrderNo(orderNo)).filter(
      (t) => !t.deletedAt && visibleTo(caller, t),
    );
    const tx = found.find((t) => t.liveOrderNo === orderNo) ?? found[0];
    if (!tx) throw new NotFound();
    return tx;
  }

  private view(
    tx: Transaction,
    ctx: { gateway: Parameters<typeof toTransactionDto>[1]['gateway']; digits: number },
  ): TransactionView {
    return {
      body: toTransactionDto(tx, { ...ctx, publicBaseUrl: this.config.publicBaseUrl }),
      etag: etagOf(tx),
    };
  }
}

function translateUniqueViolation(error: unknown): unknown {
  if (isUniqueViolation(error) && /live_order_no/.test(violatedKey(error))) {
    return new FieldErrors({ order_no: ['A live transaction with this order_no already exists.'] });
  }
  return error;
}
