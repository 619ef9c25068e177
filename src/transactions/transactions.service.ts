import { Injectable } from '@nestjs/common';
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
import { RouteDecisionsRepository, toDecisionView } from '../routing/route-decisions.repository';
import { isRouter } from '../routing/router-settings';
import { isPayable, PAYABLE_STATES, type TransactionState } from './transaction-state';
import type { StagedAttachment } from '../attachments/attachments.service';
import {
  type AttachmentChange,
  type AttachmentWrite,
  TransactionAttachments,
} from './transaction-attachment';
import { TransactionValidator } from './transaction-validator';
import { TransactionsRepository } from './transactions.repository';
import { randomHex } from '../common/random/random-pool';

/** A representation plus its ETag. */
export interface TransactionView {
  body: TransactionDto;
  etag: string;
}

const UPDATE_ATTEMPTS = 3;
export const ATTEMPT_HOLDS_IT = 'A payment attempt for this transaction is in progress; retry shortly.';
/** Thrown inside an update's database transaction when the row changed meanwhile. */
const NOT_WRITTEN = new Error('not written');

/** A request's fields as the validator accepted them, with their gateway and currency. */
type ValidatedInput = Awaited<ReturnType<TransactionValidator['validate']>>;

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

/** Create, update and retrieve (contract §4). */
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
    private readonly routeDecisions: RouteDecisionsRepository,
  ) {}

  /**
   * Creates a transaction (contract §4) with its `created` event and its attachment, in one unit of
   * work; the attachment's file is staged before it and removed again when nothing was written.
   */
  async create(principal: Principal, body: TransactionBody): Promise<TransactionView> {
    const attachment = await this.attachments.receive(body);
    let staged: StagedAttachment | null = null;
    let created: { tx: Transaction; write: AttachmentWrite };
    let input: ValidatedInput;
    try {
      input = await this.attachments.checked(
        attachment,
        this.validator.validate(body.fields, {
          principal,
          hasAttachment: this.attachments.hasAttachment(attachment, null),
        }),
      );
      staged = await this.attachments.stage(attachment);
      created = await this.insert(newTransaction(principal, input), attachment, staged);
    } catch (error) {
      await this.attachments.discard(attachment, staged);
      throw error;
    }
    await this.attachments.committed(created.write);
    return this.view(created.tx, { gateway: input.gateway, digits: input.currency.digits });
  }

  /** Inserts `draft` with its attachment and its `created` event, in one unit of work. */
  private async insert(
    draft: Transaction,
    attachment: AttachmentChange,
    staged: StagedAttachment | null,
  ): Promise<{ tx: Transaction; write: AttachmentWrite }> {
    try {
      return await this.uow.run(async (manager) => {
        const write = await this.attachments.write(manager, attachment, staged, draft, draft);
        // Built afresh on every run of the unit (a retried run starts from the draft again).
        const tx = Object.assign(new Transaction(), draft, write.columns);
        await this.transactions.insert(tx, manager);
        await this.events.recordCreated(manager, tx);
        return { tx, write };
      });
    } catch (error) {
      throw translateUniqueViolation(error);
    }
  }

  /**
   * PATCH (`partial`: sent fields change, the rest stay) or PUT (`full`: the body is the whole
   * input, optional fields left out go back to their defaults) — contract §4, §16. Read, validate
   * and write only if the row has not changed meanwhile; otherwise read again (a few rounds).
   */
  async update(
    sessionId: string,
    principal: Principal,
    body: TransactionBody,
    { ifMatch, mode }: UpdateOptions = { mode: 'partial' },
  ): Promise<TransactionView> {
    const attachment = await this.attachments.receive(body);
    let staged: StagedAttachment | null = null;
    let updated: { tx: Transaction; write: AttachmentWrite; input: ValidatedInput };
    try {
      for (let round = 1; ; round++) {
        const tx = await this.get(sessionId);
        if (ifMatch !== undefined && !ifMatchAllows(ifMatch, etagOf(tx))) throw new PreconditionFailed();
        if (!isPayable(tx.state)) {
          throw new StateConflict(`A transaction in state "${tx.state}" can no longer be updated.`);
        }
        // The gateway is charging the stored amount right now (contract §17).
        if (tx.attemptInFlight) throw new StateConflict(ATTEMPT_HOLDS_IT);
        const merged = mode === 'full' ? body.fields : mergeRequestFields(toRequestFields(tx), body.fields);
        const input = await this.attachments.checked(
          attachment,
          this.validator.validate(merged, {
            principal,
            existingId: tx.id,
            hasAttachment: this.attachments.hasAttachment(attachment, tx),
          }),
        );
        staged ??= await this.attachments.stage(attachment);
        const written = await this.writeIfCurrent(tx, input, attachment, staged);
        if (written) {
          updated = { ...written, input };
          break;
        }
        // Another writer changed the row between our read and write: read again and decide again.
        if (ifMatch !== undefined) throw new PreconditionFailed();
        if (round >= UPDATE_ATTEMPTS)
          throw new StateConflict('The transaction is being changed by another request; retry.');
      }
    } catch (error) {
      await this.attachments.discard(attachment, staged);
      throw error;
    }
    await this.attachments.committed(updated.write);
    return this.view(updated.tx, { gateway: updated.input.gateway, digits: updated.input.currency.digits });
  }

  /**
   * Writes the validated input and the attachment over `tx` in one unit of work, only while the row
   * is still at the version read, payable and not held by an attempt. Null (nothing written) when
   * it has changed meanwhile.
   */
  private async writeIfCurrent(
    tx: Transaction,
    { dto, gateway }: ValidatedInput,
    attachment: AttachmentChange,
    staged: StagedAttachment | null,
  ): Promise<{ tx: Transaction; write: AttachmentWrite } | null> {
    const columns = columnsFromInput(dto, gateway.operation);
    const base: Partial<Transaction> = {
      ...columns,
      liveOrderNo: columns.orderNo ?? null,
      updatedAt: new Date(),
      expiresAt: new Date(tx.createdAt.getTime() + columns.expirationSeconds! * 1000),
    };
    try {
      return await this.uow.run(async (manager) => {
        const write = await this.attachments.write(manager, attachment, staged, tx, columns);
        const changes = { ...base, ...write.columns };
        if (!(await this.transactions.updateIfCurrent(tx.id, tx.version, PAYABLE_STATES, changes, manager))) {
          throw NOT_WRITTEN; // roll back what the attachment wrote
        }
        const updated = Object.assign(new Transaction(), tx, changes, { version: tx.version + 1 });
        return { tx: updated, write };
      });
    } catch (error) {
      if (error === NOT_WRITTEN) return null;
      throw translateUniqueViolation(error);
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
    // Only a routing gateway's transactions have decisions: no query for the others (the hot path).
    const routing = isRouter(gateway) ? (await this.routeDecisions.list(tx.id)).map(toDecisionView) : [];
    return this.view(tx, { gateway, digits: currency?.digits ?? 2, routing });
  }

  /** Whether deleting the gateway would orphan transactions (admin: deactivate instead). */
  usesGateway(pgCode: string): Promise<boolean> {
    return this.transactions.usesGateway(pgCode);
  }

  /**
   * Inside the caller's unit of work: hides a transaction (the `delete` operation, contract §16); see
   * {@link TransactionsRepository.hide}.
   */
  hide(manager: EntityManager, id: string, states: readonly TransactionState[], now: Date): Promise<boolean> {
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
  /** Transactions by id, deleted ones included (reports that name them by their attempts). */
  findByIds(ids: readonly string[]): Promise<Transaction[]> {
    return this.transactions.findByIds(ids);
  }

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
    ctx: Omit<Parameters<typeof toTransactionDto>[1], 'publicBaseUrl'>,
  ): TransactionView {
    return {
      body: toTransactionDto(tx, { ...ctx, publicBaseUrl: this.config.publicBaseUrl }),
      etag: etagOf(tx),
    };
  }
}

/** A new transaction from validated input: `created`, its deadline counted from now. */
function newTransaction(principal: Principal, { dto, gateway }: ValidatedInput): Transaction {
  const now = new Date();
  const columns = columnsFromInput(dto, gateway.operation);
  return Object.assign(new Transaction(), columns, {
    sessionId: randomHex(20),
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
}

function translateUniqueViolation(error: unknown): unknown {
  if (isUniqueViolation(error) && /live_order_no/.test(violatedKey(error))) {
    return new FieldErrors({ order_no: ['A live transaction with this order_no already exists.'] });
  }
  return error;
}
