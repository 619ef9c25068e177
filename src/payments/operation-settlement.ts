import { Injectable, Logger } from '@nestjs/common';
import { Money } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { UnitOfWork } from '../database/unit-of-work';
import { GatewaysService } from '../gateways/gateways.service';
import type { EventDetails } from '../transactions/events/event-payload';
import { takenOnGateway, type Transaction } from '../transactions/transaction.entity';
import { TransactionsService } from '../transactions/transactions.service';
import { TransitionService } from '../transactions/transition.service';
import { ProviderCallFailed, type FollowUpOperation, type FollowUpOutcome } from './adapters/gateway-adapter';
import { GatewayAdapters } from './adapters/gateway-adapters';
import { confirmedChange } from './confirmed-operation';
import { PaymentAttemptsRepository } from './payment-attempts.repository';
import { ProviderOperation } from './provider-operation.entity';
import { ProviderOperationsRepository } from './provider-operations.repository';
import { reconcilePass } from '../common/jobs/reconcile-pass';
import { randomHex } from '../common/random/random-pool';

/**
 * How long a caller may hold an operation while it calls the provider: longer than any provider
 * call (20 s in the background, contract §20); a replica that dies mid-call frees it after this.
 */
const CALL_LEASE_MS = 60_000;
/** An answered operation that its request has not settled after this long is settled by the reconciler. */
const SETTLE_GRACE_MS = 10_000;
/**
 * Retried automatically only this long after it was written: providers keep an idempotency key's
 * first answer for at least 24 hours (https://docs.stripe.com/api/idempotent_requests), and a retry
 * after that could carry the operation out a second time. Older ones are left to a person (logged).
 */
const KEY_RETENTION_MS = 23 * 3600_000;
const RECONCILE_BATCH = 100;
/** Settling rounds when a concurrent write changed the transaction's version in between. */
const SETTLE_ROUNDS = 5;
const POLL_MS = 25;

/** What is asked of the provider: the operation and its amount, and the request's Tracking-Key. */
export interface OperationRequest {
  operation: FollowUpOperation;
  amount: string;
  trackingKey?: string | null;
}

/**
 * A claim: the new operation; the one still open on the transaction (null: it closed meanwhile); or
 * `stale`: the transaction changed since it was read (an operation settled in between), so nothing
 * was claimed and the caller decides again on the row as it is now.
 */
export type OperationClaim =
  { claimed: ProviderOperation } | { open: ProviderOperation | null } | { stale: true };

/**
 * Where an operation stands after a call:
 * - `success`: the transaction changed (its event recorded), here or by another replica;
 * - `failed`: the provider refused; the operation is closed, the transaction unchanged;
 * - `pending`: no answer yet (the provider did not answer in time, another caller is asking it
 *   now, or a person must look at it): the operation stays open.
 */
export type OperationOutcome =
  | { kind: 'success'; transaction: Transaction }
  /** `providerError`: the provider's own error answer (contract §20.1: the merchant gets 502 with it). */
  | { kind: 'failed'; message: string; providerError?: ProviderCallFailed }
  /** `providerError`: the provider's error while it could not tell (503 `pending` with it). */
  | { kind: 'pending'; providerError?: ProviderCallFailed };

export interface ReconcileOperationsResult {
  succeeded: number;
  failed: number;
  /** Left for the next run: no answer yet, or settling failed. */
  left: number;
}

/**
 * Provider operations (capture, void, refund) with the durability of a payment attempt (contract
 * §20 "Operations", §17):
 *
 * 1. {@link claim}: the operation is written `pending`, and committed, before the provider is
 *    called; one open operation per transaction (a unique key), so a second one is refused;
 * 2. {@link carryOut}: the provider is called with the operation's own key (the same on every
 *    retry, so the provider never does it twice), under a lease so that no two callers send it
 *    at once; its answer is stored at once;
 * 3. {@link settle}: in one unit of work the operation is closed and the transaction changed with
 *    its event (success), or closed — and the merchant told by a `failed` event when its request
 *    did not get the answer (failure).
 *
 * An operation left pending (a 503 `pending` answer, a crash) is finished by the reconciler and by
 * inquiry (contract §16), by calling the provider again with the same key.
 */
@Injectable()
export class OperationSettlement {
  private readonly logger = new Logger('ProviderOperations');

  constructor(
    private readonly transactions: TransactionsService,
    private readonly transitions: TransitionService,
    private readonly gateways: GatewaysService,
    private readonly adapters: GatewayAdapters,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly operations: ProviderOperationsRepository,
    private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * Step 1: writes the operation `pending`, leased to this caller, before the provider is called.
   * When the transaction already has an open operation, that one is returned instead. `tx` is the
   * row the operation was planned on: if it changed before the claim was won (the operation that
   * held it settled meanwhile), the claim is withdrawn unsent and `stale` returned.
   */
  async claim(tx: Transaction, request: OperationRequest, now: Date = new Date()): Promise<OperationClaim> {
    const attempt = await this.attempts.findLastSuccess(tx.id);
    const operation = Object.assign(new ProviderOperation(), {
      transactionId: tx.id,
      openTransactionId: tx.id,
      operation: request.operation,
      amount: new Money(request.amount).toFixed(),
      currencyCode: tx.currencyCode,
      // The gateway that took the payment (contract §21: a routing gateway's member).
      pgCode: attempt?.pgCode ?? takenOnGateway(tx),
      referenceNumber: attempt?.referenceNumber ?? '',
      operationKey: `op_${randomHex(16)}`,
      trackingKey: request.trackingKey ?? null,
      state: 'pending',
      message: null,
      leaseToken: newLeaseToken(),
      leasedUntil: new Date(now.getTime() + CALL_LEASE_MS),
      createdAt: now,
      answeredAt: null,
      settledAt: null,
    } satisfies Partial<ProviderOperation>);
    if (!(await this.operations.insertClaim(operation)))
      return { open: await this.operations.findOpen(tx.id) };
    const current = await this.transactions.findById(tx.id);
    if (current?.version === tx.version) return { claimed: operation };
    await this.operations.deleteUnsent(operation.id);
    return { stale: true };
  }

  /**
   * Steps 2 and 3 for an open operation. A pending one is sent to the provider (again) with its own
   * key — `claimed` says the caller wrote it just now and holds its lease; otherwise the lease is
   * taken first, and when someone else holds it the outcome is `pending`. `tellMerchant`: the
   * merchant's request did not get this answer, so a failure is told by a `failed` event.
   */
  async carryOut(
    operation: ProviderOperation,
    options: { claimed?: boolean; tellMerchant: boolean; deadline?: number },
  ): Promise<OperationOutcome> {
    if (operation.state !== 'pending') return this.settle(operation, options.tellMerchant);
    const now = new Date();
    if (!options.claimed && now.getTime() - operation.createdAt.getTime() > KEY_RETENTION_MS) {
      this.logger.error(
        { operationKey: operation.operationKey, operation: operation.operation },
        'A provider operation has been pending for longer than providers keep its key: a person must check it',
      );
      return { kind: 'pending' };
    }
    let token = operation.leaseToken;
    if (!options.claimed) {
      token = newLeaseToken();
      if (
        !(await this.operations.takeLease(operation.id, token, new Date(now.getTime() + CALL_LEASE_MS), now))
      ) {
        return { kind: 'pending' };
      }
    }
    const { providerError, ...answer } = await this.callProvider(
      operation,
      !options.claimed,
      options.deadline,
    );
    if (answer.result === 'unknown') {
      // Not again before the provider has certainly finished with this call (contract §17's bound).
      await this.operations.holdLease(operation.id, token ?? '', new Date(Date.now() + this.retryAfterMs));
      this.logger.warn(
        { operationKey: operation.operationKey, operation: operation.operation },
        'The provider did not answer an operation in time; it stays pending',
      );
      return { kind: 'pending', ...(providerError ? { providerError } : {}) };
    }
    await this.operations.storeAnswer(operation.id, {
      state: answer.result,
      message:
        answer.result === 'failed'
          ? truncate(answer.message ?? `The gateway refused the ${operation.operation}.`)
          : null,
    });
    const stored = (await this.operations.findById(operation.id)) ?? operation;
    if (stored.state !== answer.result) {
      this.logger.error(
        { operationKey: operation.operationKey, stored: stored.state, provider: answer.result },
        'A provider reports another outcome than the one an operation was stored with',
      );
    }
    const settled = await this.settle(stored, options.tellMerchant);
    return settled.kind === 'failed' && providerError ? { ...settled, providerError } : settled;
  }

  /**
   * Step 3, from the stored answer; idempotent (conditional on the operation being unsettled). A
   * success changes the transaction as the operation does (captured, voided, refunded amounts) and
   * records its event; a failure closes the operation, with a `failed` event carrying the operation
   * and the provider's message when `tellMerchant` (webhook only: it is the merchant's business).
   */
  async settle(operation: ProviderOperation, tellMerchant: boolean): Promise<OperationOutcome> {
    if (operation.state === 'pending') throw new Error(`Operation ${operation.id} has no answer yet`);
    const details: EventDetails = {
      operation: operation.operation,
      operationAmount: operation.amount,
      result: operation.state,
      referenceNumber: operation.referenceNumber || undefined,
    };
    if (operation.state === 'failed') {
      const message = operation.message ?? `The gateway refused the ${operation.operation}.`;
      const tx = await this.transactionOf(operation);
      await this.uow.run(async (manager) => {
        if (!(await this.operations.markSettled(operation.id, manager))) return;
        if (tellMerchant) {
          await this.transitions.recordUnchanged(manager, tx, 'failed', {
            ...details,
            message,
            merchantOnly: true,
          });
        }
      });
      return { kind: 'failed', message };
    }
    for (let round = 1; round <= SETTLE_ROUNDS; round++) {
      const tx = await this.transactionOf(operation);
      const change = confirmedChange(operation.operation, operation.amount, tx);
      if (!change) {
        if (await this.isSettled(operation)) return { kind: 'success', transaction: tx };
        this.logger.error(
          { operationKey: operation.operationKey, sessionId: tx.sessionId, state: tx.state },
          'A provider carried out an operation that the transaction no longer allows: a person must check it',
        );
        return { kind: 'pending' };
      }
      try {
        const settled = await this.uow.run(async (manager) => {
          if (!(await this.operations.markSettled(operation.id, manager))) return null;
          const won = await this.transitions.change(manager, tx, {
            trigger: change.trigger,
            version: change.versionGuard ? tx.version : undefined,
            amounts: change.amounts,
          });
          if (!won) throw new LostRace();
          await this.transitions.record(manager, won, details);
          return won.transaction;
        });
        return { kind: 'success', transaction: settled ?? (await this.transactionOf(operation)) };
      } catch (error) {
        if (!(error instanceof LostRace)) throw error;
      }
    }
    this.logger.warn({ operationKey: operation.operationKey }, 'Could not settle an operation yet');
    return { kind: 'pending' };
  }

  /** The transaction's open operation, if any. */
  openFor(transactionId: string): Promise<ProviderOperation | null> {
    return this.operations.findOpen(transactionId);
  }

  /** Waits up to `ms` for the transaction's open operation to close; true once none is open. */
  async waitUntilClosed(transactionId: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (!(await this.operations.findOpen(transactionId))) return true;
      if (Date.now() + POLL_MS > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /**
   * Inquiry (contract §16, §20): finishes the transaction's open operation if its outcome can be
   * known now. Null when there is none; `pending` while another caller asks the provider.
   */
  async finishOpen(tx: Transaction, deadline?: number): Promise<OperationOutcome | null> {
    const open = await this.operations.findOpen(tx.id);
    if (!open) return null;
    return this.carryOut(open, { tellMerchant: true, ...(deadline !== undefined ? { deadline } : {}) });
  }

  /**
   * One run of the reconciler (contract §17, §20): every operation left open — pending (asked
   * again with its key once nobody holds it) or answered but not settled (older than a grace
   * period) — is finished. Safe on several replicas at once: the lease lets one call the provider,
   * and settling is conditional.
   */
  async reconcile(now: Date = new Date()): Promise<ReconcileOperationsResult> {
    const grace = Math.min(SETTLE_GRACE_MS, this.retryAfterMs);
    const due = await this.operations.findUnsettled(new Date(now.getTime() - grace), RECONCILE_BATCH);
    const result: ReconcileOperationsResult = { succeeded: 0, failed: 0, left: 0 };
    return reconcilePass(
      due,
      result,
      async (operation) => {
        const { kind } = await this.carryOut(operation, { tellMerchant: true });
        return kind === 'success' ? 'succeeded' : kind === 'failed' ? 'failed' : 'left';
      },
      {
        logger: this.logger,
        about: (operation) => ({ operationKey: operation.operationKey }),
        notYet: 'Could not finish a provider operation yet',
        finished: 'Finished provider operations left pending',
        progressed: (tally) => tally.succeeded + tally.failed > 0,
      },
    );
  }

  /**
   * Calls the provider with the operation's key. A driver that throws, or a gateway no driver serves
   * now, is `unknown`: the operation stays pending and is asked again later.
   */
  private async callProvider(
    operation: ProviderOperation,
    repeat: boolean,
    deadline?: number,
  ): Promise<FollowUpOutcome & { providerError?: ProviderCallFailed }> {
    try {
      const gateway = await this.gateways.findByCode(operation.pgCode);
      const bound = gateway ? await this.adapters.bind(gateway) : null;
      if (!gateway || !bound) return { result: 'unknown' };
      const tx = await this.transactionOf(operation);
      const attempt = operation.referenceNumber
        ? await this.attempts.findByReference(operation.referenceNumber)
        : null;
      return await bound.driver.followUp({
        gateway,
        settings: bound.settings,
        ...(deadline !== undefined ? { deadline } : {}),
        operation: operation.operation,
        referenceNumber: operation.referenceNumber,
        provider: attempt?.provider ?? null,
        amount: operation.amount,
        currencyCode: operation.currencyCode,
        partial: !new Money(operation.amount).eq(tx.amount),
        operationKey: operation.operationKey,
        repeat,
      });
    } catch (error) {
      this.logger.warn(
        { err: error, operationKey: operation.operationKey },
        'A provider operation call failed',
      );
      // The provider's own error answer (contract §20.1): a refusal is a failed operation, shown to
      // the merchant with the provider's error; anything it may still carry out stays pending.
      if (error instanceof ProviderCallFailed) {
        return error.details.retryable
          ? { result: 'unknown', providerError: error }
          : {
              result: 'failed',
              message: `${error.provider} refused the ${operation.operation}: ${error.message}`,
              providerError: error,
            };
      }
      return { result: 'unknown' };
    }
  }

  private async isSettled(operation: ProviderOperation): Promise<boolean> {
    return ((await this.operations.findById(operation.id))?.settledAt ?? null) !== null;
  }

  /** How long after a call without an answer the operation may be asked about again. */
  private get retryAfterMs(): number {
    return this.config.paymentAttemptTimeoutSeconds * 1000;
  }

  private async transactionOf(operation: ProviderOperation): Promise<Transaction> {
    const tx = await this.transactions.findById(operation.transactionId);
    if (!tx) throw new Error(`Transaction ${operation.transactionId} of operation ${operation.id} is gone`);
    return tx;
  }
}

/** A concurrent write changed the transaction between its read and the settling unit: read again. */
class LostRace extends Error {
  constructor() {
    super('The transaction changed while an operation was being settled');
  }
}

function newLeaseToken(): string {
  return randomHex(16);
}

/** The provider's message fits its column (255). */
function truncate(message: string): string {
  return message.length > 255 ? `${message.slice(0, 254)}…` : message;
}
