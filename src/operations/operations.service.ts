import { Injectable, Logger } from '@nestjs/common';
import { providerDeadline } from '../payments/provider-budget';
import { createHash } from 'node:crypto';
import { principalScope, type Principal } from '../auth/principal';
import { canonicalJson } from '../common/canonical-json';
import { DomainError } from '../common/errors/domain-errors';
import { ProviderCallError, providerCallError } from '../common/errors/provider-errors';
import { amountProblem, formatAmount, Money, significantDecimals } from '../common/money/money';
import { CurrenciesService } from '../currencies/currencies.service';
import { UnitOfWork } from '../database/unit-of-work';
import { GatewayDrivers, type DriverOperation } from '../gateways/gateway-drivers';
import { GatewaysService } from '../gateways/gateways.service';
import type { FollowUpOperation } from '../payments/adapters/gateway-adapter';
import { GatewayAdapters } from '../payments/adapters/gateway-adapters';
import { OperationSettlement, type OperationOutcome } from '../payments/operation-settlement';
import type { ProviderOperation } from '../payments/provider-operation.entity';
import { confirmedChange, refundBase } from '../payments/confirmed-operation';
import { nextState, type Trigger } from '../transactions/state-machine';
import { isPayable } from '../transactions/transaction-state';
import { takenOnGateway, type Transaction } from '../transactions/transaction.entity';
import { ATTEMPT_HOLDS_IT, TransactionsService } from '../transactions/transactions.service';
import { TransitionService, type AmountChanges } from '../transactions/transition.service';
import { IdempotencyService } from '../idempotency/idempotency.service';

export const OPERATIONS = ['capture', 'void', 'refund', 'cancel', 'expire', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

const MAX_TRACKING_KEY = 255;
const NOT_FOUND = 'Not found.';
/** The `route` of Tracking-Key rows among the idempotency keys (a route of their own). */
export const TRACKING_KEY_ROUTE = 'POST /b/pbl/v2/operation/ Tracking-Key';
/** Read-modify-write rounds before giving up under contention (partial refunds). */
const ROUNDS = 10;
/** How long an operation waits for the transaction's open one to close before it is refused. */
const WAIT_FOR_OPEN_MS = 2000;
const BUSY = 'The transaction is being changed by another request; retry.';
const OPERATION_OPEN =
  'Another operation on this transaction is waiting for the gateway’s answer; retry later.';

const DONE: Record<Operation, string> = {
  capture: 'The transaction has been captured.',
  void: 'The authorization has been voided.',
  refund: 'The amount has been refunded.',
  cancel: 'The transaction has been canceled.',
  expire: 'The transaction has been expired.',
  delete: 'The transaction has been deleted.',
};

/** An operation's answer: status code and contract §10 body. */
export interface OperationAnswer {
  status: number;
  body: Record<string, unknown>;
  /** True when a Tracking-Key repeat returned the first result. */
  replayed?: boolean;
  /** Response headers (`Retry-After` of a provider that did not answer). */
  headers?: Record<string, string>;
}

/** A refused operation: contract §10's `{"detail", "operation", "result": "failed"}` (400 unless said). */
export class OperationRefused extends DomainError {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** An amount refused with its rule: contract §10's failed body, plus the rule under `amount` (§2). */
export class AmountRefused extends OperationRefused {
  constructor(message: string) {
    super(message);
  }
  override body(): unknown {
    return { detail: this.message, amount: [this.message] };
  }
}

/** The provider did not answer an operation in time (contract §20): 503 with `"result": "pending"`. */
export class OperationPending extends DomainError {
  readonly status = 503;
}

/**
 * The operations API (contract §10): capture, void, refund, cancel and expire, through the state
 * machine. Amounts use decimal math against what is left. A `Tracking-Key` makes a repeat answer
 * the first result.
 */
@Injectable()
export class OperationsService {
  private readonly logger = new Logger(OperationsService.name);

  constructor(
    private readonly transactions: TransactionsService,
    private readonly transitions: TransitionService,
    private readonly currencies: CurrenciesService,
    private readonly gateways: GatewaysService,
    private readonly adapters: GatewayAdapters,
    private readonly settlement: OperationSettlement,
    private readonly idempotency: IdempotencyService,
    private readonly uow: UnitOfWork,
    private readonly drivers: GatewayDrivers,
  ) {}

  async run(principal: Principal, body: unknown, trackingKey?: string): Promise<OperationAnswer> {
    const input = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<
      string,
      unknown
    >;
    const operationName = typeof input.operation === 'string' ? input.operation : null;
    if (trackingKey === undefined)
      return this.answer(operationName, () => this.execute(principal, input, null));

    if (trackingKey.length === 0 || trackingKey.length > MAX_TRACKING_KEY) {
      return refusedAnswer(
        operationName,
        new OperationRefused(`Tracking-Key must be 1 to ${MAX_TRACKING_KEY} characters.`),
      );
    }
    // The Idempotency-Key engine (contract §11), on a route of its own: claim, 409 while the first
    // request runs, 422 for another body, the first answer replayed (failed ones too), 24 h.
    const fingerprint = createHash('sha256').update(canonicalJson(input)).digest('hex');
    const ref = { scope: principalScope(principal), key: trackingKey, route: TRACKING_KEY_ROUTE };
    const claim = await this.idempotency.claim(ref, fingerprint);
    if (claim.kind === 'in_flight') {
      return refusedAnswer(
        operationName,
        new OperationRefused('An operation with this Tracking-Key is still running.', 409),
      );
    }
    if (claim.kind === 'mismatch') {
      return refusedAnswer(
        operationName,
        new OperationRefused('This Tracking-Key was already used with another request.', 422),
      );
    }
    if (claim.kind === 'replay') {
      const body = JSON.parse(claim.response.body) as Record<string, unknown>;
      return { status: claim.response.status, body, replayed: true };
    }
    let answer: OperationAnswer;
    try {
      answer = await this.answer(operationName, () => this.execute(principal, input, trackingKey));
    } catch (error) {
      await this.idempotency.release(claim);
      throw error;
    }
    if (answer.body.result === 'pending') {
      // Not an answer to replay: a repeat with this key resumes the pending operation (contract §20).
      await this.idempotency.release(claim);
      return answer;
    }
    await this.idempotency.complete(claim, {
      status: answer.status,
      headers: {},
      body: JSON.stringify(answer.body),
    });
    return answer;
  }

  /** Runs the operation; a domain error becomes the operation's failed answer. */
  private async answer(
    operation: string | null,
    run: () => Promise<Record<string, unknown>>,
  ): Promise<OperationAnswer> {
    try {
      return { status: 200, body: await run() };
    } catch (error) {
      // The provider's own error (contract §20.1): 503 pending or 502 failed, never its status.
      const refused = error instanceof DomainError ? error : providerCallError(error);
      if (refused) return refusedAnswer(operation, refused);
      throw error;
    }
  }

  private async execute(
    principal: Principal,
    input: Record<string, unknown>,
    trackingKey: string | null,
  ): Promise<Record<string, unknown>> {
    const operation = parseOperation(input.operation);
    const tx = await this.find(principal, input);
    const currency = await this.currencies.findByCode(tx.currencyCode);
    const digits = currency?.digits ?? 2;
    if (operation === 'delete') return this.hide(tx, digits);
    const requested =
      operation === 'capture' || operation === 'refund' ? parseAmount(input.amount, digits, tx) : null;
    if (operation === 'capture' || operation === 'void' || operation === 'refund')
      await this.refuseUnsupported(tx, operation);

    // One bound on waiting for other operations, however many rounds it takes.
    const waitUntil = Date.now() + WAIT_FOR_OPEN_MS;
    for (let round = 1; ; round++) {
      const current = round === 1 ? tx : await this.transactions.get(tx.sessionId);
      if (current.attemptInFlight) throw new OperationRefused(ATTEMPT_HOLDS_IT, 409);
      const plan = planOperation(operation, current, requested, digits);
      if (plan.followUp === 'capture' || plan.followUp === 'refund')
        await this.refuseUnmovable(current, plan);
      if (plan.followUp) {
        const done = await this.followUp(current, plan.followUp, plan.amount, trackingKey, waitUntil);
        if (!done) {
          // The transaction changed meanwhile (an open operation closed): decide again on it as it is now.
          if (round >= ROUNDS) throw new OperationRefused(BUSY, 409);
          continue;
        }
        return {
          detail: DONE[operation],
          operation,
          result: 'success',
          session_id: done.sessionId,
          order_no: done.orderNo,
          amount: formatAmount(plan.amount, digits),
          state: done.state,
        };
      }
      const won = await this.uow.run((manager) =>
        this.transitions.applyIn(manager, current, {
          trigger: plan.trigger,
          version: plan.versionGuard ? current.version : undefined,
          amounts: plan.amounts,
          details: { operation, operationAmount: formatAmount(plan.amount, digits), result: 'success' },
        }),
      );
      if (won) {
        return {
          detail: DONE[operation],
          operation,
          result: 'success',
          session_id: won.transaction.sessionId,
          order_no: won.transaction.orderNo,
          amount: formatAmount(plan.amount, digits),
          state: won.transaction.state,
        };
      }
      // Refused by the table, or another change won: decide again on the row as it is now.
      if (!(await this.transactions.findById(current.id))) throw new OperationRefused(NOT_FOUND, 404);
      if (round >= ROUNDS) {
        throw new OperationRefused(BUSY, 409);
      }
    }
  }

  /**
   * The `delete` operation (contract §16): hides the transaction and releases its order_no; a payable
   * one is canceled first, in the same unit of work (its `canceled` event says `operation: delete`).
   * An authorization still holds the customer's money: it must be voided or captured first.
   */
  private async hide(tx: Transaction, digits: number): Promise<Record<string, unknown>> {
    for (let round = 1; ; round++) {
      const current = round === 1 ? tx : await this.transactions.get(tx.sessionId);
      if (current.attemptInFlight) throw new OperationRefused(ATTEMPT_HOLDS_IT, 409);
      if (current.state === 'authorized') {
        throw new OperationRefused('Cannot delete an authorized transaction: void or capture it first.');
      }
      if (await this.settlement.openFor(current.id)) throw new OperationRefused(OPERATION_OPEN, 409);
      const now = new Date();
      let hidden: Transaction | null = null;
      if (isPayable(current.state)) {
        hidden = await this.cancelAndHide(current, now);
      } else if (
        await this.uow.retrying((manager) =>
          this.transactions.hide(manager, current.id, [current.state], now),
        )
      ) {
        hidden = current;
      }
      if (hidden) {
        return {
          detail: DONE.delete,
          operation: 'delete',
          result: 'success',
          session_id: hidden.sessionId,
          order_no: hidden.orderNo,
          amount: formatAmount(hidden.amount, digits),
          state: hidden.state,
        };
      }
      // Another change won (a payment, a concurrent delete): decide again on the row as it is now.
      if (round >= ROUNDS) {
        throw new OperationRefused(BUSY, 409);
      }
    }
  }

  /**
   * A payable transaction canceled and hidden in one unit of work; its `canceled` event says
   * `operation: delete`. Null when another change won.
   */
  private cancelAndHide(tx: Transaction, now: Date): Promise<Transaction | null> {
    return this.uow.run(async (manager) => {
      const change = await this.transitions.change(manager, tx, { trigger: 'cancel', now });
      if (!change) return null;
      const canceled = change.transaction;
      if (!(await this.transactions.hide(manager, canceled.id, [canceled.state], now))) {
        throw new Error(`Transaction ${canceled.id} could not be hidden after its cancel`);
      }
      await this.transitions.record(manager, change, {
        operation: 'delete',
        operationAmount: tx.amount,
        result: 'success',
      });
      return canceled;
    });
  }

  /**
   * The transaction the request names. One on a gateway the caller may not use answers exactly as
   * an unknown one (contract §3: permissions reveal nothing); by order_no, such transactions are not
   * considered at all.
   */
  private async find(principal: Principal, input: Record<string, unknown>): Promise<Transaction> {
    try {
      if (typeof input.session_id === 'string' && input.session_id !== '') {
        return await this.transactions.get(input.session_id, principal);
      }
      if (typeof input.order_no === 'string' && input.order_no !== '') {
        return await this.transactions.getByOrderNo(input.order_no, principal);
      }
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw new OperationRefused(NOT_FOUND, 404);
      throw error;
    }
    throw new OperationRefused('Send "session_id" or "order_no" to name the transaction.');
  }

  /**
   * Capture, void and refund are carried out by the provider first, durably (contract §20, §17;
   * OperationSettlement): the operation is written before the provider is called, and the
   * transaction changes only once the provider confirms. Returns the transaction as changed; null
   * when the transaction changed meanwhile (an open operation closed): plan again. A refusal →
   * 400 `failed`; no answer in time → 503 `pending` (the reconciler and inquiry finish it later).
   *
   * One open operation per transaction: another one waits for it a moment (so a burst of operations
   * on a fast provider runs one after the other), then is refused with 409. A repeat of the open
   * operation with its Tracking-Key resumes it, with the same key for the provider.
   */
  private async followUp(
    tx: Transaction,
    operation: FollowUpOperation,
    amount: string,
    trackingKey: string | null,
    waitUntil: number,
  ): Promise<Transaction | null> {
    const code = takenOnGateway(tx);
    const gateway = await this.gateways.findByCode(code);
    const bound = gateway ? await this.adapters.bind(gateway) : null;
    if (!gateway || !bound) throw new OperationRefused(`Gateway "${code}" cannot ${operation} here.`);
    const partial = !new Money(amount).eq(tx.amount);
    if (partial) await this.refuseUnsupported(tx, operation, true);
    const claim = await this.settlement.claim(tx, { operation, amount, trackingKey });
    if ('stale' in claim) return null;
    let outcome: OperationOutcome;
    if ('claimed' in claim) {
      outcome = await this.settlement.carryOut(claim.claimed, {
        claimed: true,
        tellMerchant: false,
        deadline: providerDeadline(),
      });
    } else if (claim.open && isRepeatOf(claim.open, operation, amount, trackingKey)) {
      outcome = await this.settlement.carryOut(claim.open, {
        tellMerchant: false,
        deadline: providerDeadline(),
      });
    } else {
      if (await this.settlement.waitUntilClosed(tx.id, Math.max(0, waitUntil - Date.now()))) return null;
      throw new OperationRefused(OPERATION_OPEN, 409);
    }
    switch (outcome.kind) {
      case 'success':
        return outcome.transaction;
      case 'failed':
        this.logger.warn({ sessionId: tx.sessionId, operation }, 'Gateway refused an operation');
        // The provider's own error answer: 502 with it (contract §20.1), never its status as ours.
        if (outcome.providerError) throw outcome.providerError;
        throw new OperationRefused(outcome.message);
      case 'pending':
        if (outcome.providerError) throw outcome.providerError;
        throw new OperationPending(
          `The gateway did not confirm the ${operation} in time; it may still happen.`,
        );
    }
  }

  /**
   * An amount the gateway's provider cannot move (contract §20.1: Stripe's amount rule, e.g. a
   * 0.005 KWD refund) → 400 with the rule under `amount`, before anything is stored or sent.
   */
  private async refuseUnmovable(tx: Transaction, plan: Plan): Promise<void> {
    const gateway = await this.gateways.lookup(takenOnGateway(tx));
    const problem = gateway ? this.drivers.amountProblem(gateway.pg, plan.amount, tx.currencyCode) : null;
    if (problem) throw new AmountRefused(problem);
  }

  /**
   * An operation the gateway's driver does not support (the catalogue's `operations`, contract §20)
   * → 400 `Gateway "<code>" (<pg>) cannot <operation>.`, before the state is looked at.
   */
  private async refuseUnsupported(
    tx: Transaction,
    operation: FollowUpOperation,
    partial = false,
  ): Promise<void> {
    const gateway = await this.gateways.findByCode(takenOnGateway(tx));
    const driver = gateway ? this.drivers.find(gateway.pg) : null;
    if (!gateway || !driver) return;
    const needed: DriverOperation = partial && operation !== 'void' ? `partial_${operation}` : operation;
    if (!driver.operations.includes(needed)) {
      const what = partial ? `partially ${operation}` : operation;
      throw new OperationRefused(`Gateway "${gateway.code}" (${gateway.pg}) cannot ${what}.`);
    }
  }
}

/** The open operation is this request repeated with its Tracking-Key: same operation, same amount. */
function isRepeatOf(
  open: ProviderOperation,
  operation: FollowUpOperation,
  amount: string,
  trackingKey: string | null,
): boolean {
  return (
    trackingKey !== null &&
    open.trackingKey === trackingKey &&
    open.operation === operation &&
    new Money(open.amount).eq(amount)
  );
}

interface Plan {
  trigger: Trigger;
  amount: string;
  amounts?: AmountChanges;
  versionGuard: boolean;
  followUp?: FollowUpOperation;
}

/**
 * What an operation does to the transaction as it is now, or why it is refused (contract §5/§10).
 * `requested` is the amount sent (capture, refund), null for "the rest".
 */
export function planOperation(
  operation: Exclude<Operation, 'delete'>,
  tx: Transaction,
  requested: string | null,
  digits: number,
): Plan {
  const refuse = () => new OperationRefused(`Cannot ${operation} a transaction in state "${tx.state}".`);
  switch (operation) {
    case 'cancel':
    case 'expire': {
      const trigger: Trigger = operation === 'cancel' ? 'cancel' : 'expire';
      if (!nextState(tx.state, trigger)) throw refuse();
      return { trigger, amount: tx.amount, versionGuard: false };
    }
    case 'void':
      return followUpPlan('void', tx.amount, tx, refuse);
    case 'capture': {
      if (!nextState(tx.state, 'capture')) throw refuse();
      const amount = requested ?? tx.amount;
      if (new Money(amount).gt(tx.amount)) {
        throw new OperationRefused(
          `The amount exceeds the authorized amount (${formatAmount(tx.amount, digits)}).`,
        );
      }
      return followUpPlan('capture', new Money(amount).toFixed(), tx, refuse);
    }
    case 'refund': {
      if (!nextState(tx.state, 'refund_full')) throw refuse();
      const rest = refundBase(tx).minus(tx.refundedAmount);
      if (rest.lte(0)) throw new OperationRefused('Nothing is left to refund.');
      const amount = requested === null ? rest : new Money(requested);
      if (amount.gt(rest)) {
        throw new OperationRefused(
          `The amount exceeds what is left to refund (${formatAmount(rest, digits)}).`,
        );
      }
      return followUpPlan('refund', amount.toFixed(), tx, refuse);
    }
  }
}

/** A capture, void or refund: the provider's part, then what its confirmation does to the row. */
function followUpPlan(
  operation: FollowUpOperation,
  amount: string,
  tx: Transaction,
  refuse: () => OperationRefused,
): Plan {
  const change = confirmedChange(operation, amount, tx);
  if (!change) throw refuse();
  return { ...change, amount, followUp: operation };
}

function parseOperation(value: unknown): Operation {
  if (typeof value === 'string' && (OPERATIONS as readonly string[]).includes(value))
    return value as Operation;
  throw new OperationRefused(`"operation" must be one of: ${OPERATIONS.join(', ')}.`);
}

/** A sent amount (decimal text; JSON numbers arrive as text), or null when omitted ("the rest"). */
function parseAmount(value: unknown, digits: number, tx: Transaction): string | null {
  if (value === undefined || value === null || value === '') return null;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') throw new OperationRefused('"amount" must be a decimal string.');
  switch (amountProblem(text)) {
    case null:
      break;
    case 'not_positive':
      throw new OperationRefused('"amount" must be greater than 0.');
    default:
      throw new OperationRefused('"amount" must be a decimal string.');
  }
  if (significantDecimals(text) > digits) {
    throw new OperationRefused(
      `Ensure that there are no more than ${digits} decimal places for ${tx.currencyCode}.`,
    );
  }
  return new Money(text).toFixed();
}

/**
 * A refusal as contract §10's `{"detail", "operation", "result"}`, with what else the error's body
 * says (`amount` for an amount refused by its rule, `provider_error` for the provider's own error).
 */
function refusedAnswer(operation: string | null, error: DomainError): OperationAnswer {
  const body = error.body() as Record<string, unknown>;
  const pending =
    error instanceof OperationPending || (error instanceof ProviderCallError && error.retryable);
  const more = Object.fromEntries(
    REFUSAL_ADDITIONS.filter((key) => body[key] !== undefined).map((key) => [key, body[key]]),
  );
  return {
    status: error.status,
    ...(Object.keys(error.headers).length > 0 ? { headers: error.headers } : {}),
    body: {
      detail: typeof body.detail === 'string' ? body.detail : error.message,
      operation,
      result: pending ? 'pending' : 'failed',
      ...more,
    },
  };
}

/** What a refusal's body may add to contract §10's three keys. */
const REFUSAL_ADDITIONS = ['amount', 'provider_error'] as const;
