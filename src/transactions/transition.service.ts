import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { UnitOfWork } from '../database/unit-of-work';
import { Metrics } from '../metrics/metrics';
import type { EventName } from '../events/event-types';
import type { EventDetails } from './events/event-payload';
import { TransactionEvents } from './events/transaction-events';
import { eventFor, ruleFor, type Trigger } from './state-machine';
import { PAYABLE_STATES } from './transaction-state';
import type { Transaction } from './transaction.entity';
import type { TransactionState } from './transaction-state';
import { TransactionsRepository } from './transactions.repository';

/** Money columns a transition may set (decimal strings). */
export type AmountChanges = Partial<
  Pick<Transaction, 'paidAmount' | 'capturedAmount' | 'refundedAmount' | 'voidedAmount'>
>;

export interface TransitionInput {
  trigger: Trigger;
  /** Narrows the table's from-states for this call (never widens them). */
  from?: readonly TransactionState[];
  /** Only while the row still has this version (read-modify-write of amounts). */
  version?: number;
  /** Only when the deadline (`expires_at`) is at or before this instant (expiry). */
  dueBy?: Date;
  /**
   * The reference number of the payment attempt this transition settles: only while that attempt
   * holds the transaction, which it then frees. Without it, a transaction an attempt holds is
   * refused (contract §17).
   */
  settles?: string;
  amounts?: AmountChanges;
  /** The gateway a payment succeeded on (`gateway_code`, contract §21), set with a successful attempt's change. */
  takenBy?: string;
  now?: Date;
}

/** A change won inside the caller's unit of work, its event not yet recorded. */
export interface Change {
  /** The row as the change left it. */
  transaction: Transaction;
  /** The state the caller read before the change. */
  from: TransactionState;
  trigger: Trigger;
  event: EventName;
}

/**
 * The one place that changes a transaction's state (contract §5). Each change is a conditional UPDATE
 * (`… WHERE id = ? AND state IN (allowed) [AND version = ?] [AND expires_at <= ?]`, row count
 * checked) plus its event, in one DB transaction: two concurrent attempts cannot both win, and a
 * change never overwrites a newer state.
 *
 * It never opens a unit of work: the caller (the method that starts the change: an operation, the
 * checkout page's cancel, a settlement, the expiry job) opens it and passes its manager. A caller
 * with writes of its own calls the two steps with its writes between them: {@link change} (the
 * conditional write), then {@link record} (the event); {@link applyIn} is both steps and nothing else.
 */
@Injectable()
export class TransitionService {
  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly events: TransactionEvents,
    private readonly uow: UnitOfWork,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Both steps inside the caller's unit of work: applies `input.trigger` to `tx` (as the caller read
   * it) and records its event (`details`: what the event carries beside the transaction). Null when
   * the table refuses it or another change won; the caller then reads the row as it is now.
   */
  async applyIn(
    manager: EntityManager,
    tx: Transaction,
    input: TransitionInput & { details?: EventDetails },
  ): Promise<Change | null> {
    const change = await this.change(manager, tx, input);
    if (change) await this.record(manager, change, input.details);
    return change;
  }

  /**
   * Step 1, inside the caller's unit of work: the conditional write of `input.trigger` on `tx` (as
   * the caller read it). Null when the table refuses it or another change won; the caller then
   * decides on the row as it is now.
   */
  async change(manager: EntityManager, tx: Transaction, input: TransitionInput): Promise<Change | null> {
    const rule = ruleFor(input.trigger);
    const from = input.from ? rule.from.filter((s) => input.from!.includes(s)) : rule.from;
    let to: TransactionState;
    if (rule.to === 'same') {
      // The state stays: only a version-guarded read-modify-write knows which state that is.
      if (input.version === undefined) throw new Error(`Trigger "${input.trigger}" needs a version guard`);
      if (!from.includes(tx.state)) return null;
      to = tx.state;
    } else {
      to = rule.to;
    }
    const changes: Partial<Transaction> = {
      state: to,
      updatedAt: input.now ?? new Date(),
      ...input.amounts,
      ...(input.takenBy !== undefined ? { gatewayCode: input.takenBy } : {}),
    };
    const won = await this.transactions.transitionIf(
      tx.id,
      {
        from: rule.to === 'same' ? [to] : from,
        version: input.version,
        dueBy: input.dueBy,
        settles: input.settles,
      },
      changes,
      manager,
    );
    if (!won) return null;
    const transaction = (await this.transactions.findByIdIn(tx.id, manager))!;
    // `from` as this caller saw it: exact unless the row moved between its read and our write.
    return { transaction, from: tx.state, trigger: input.trigger, event: eventFor(input.trigger, to) };
  }

  /**
   * Step 2, in the same unit as {@link change}: records the change's event with `details` (what it
   * carries beside the transaction: operation, amount, reference number, card...). Counted in the
   * metrics once the unit commits.
   */
  async record(manager: EntityManager, change: Change, details: EventDetails = {}): Promise<void> {
    await this.events.record(manager, change.transaction, change.event, details);
    const labels = { trigger: change.trigger, to: change.transaction.state };
    this.uow.afterCommit(manager, () => this.metrics.transitions.inc(labels));
  }

  /**
   * Inside the caller's unit of work: records `event` for a transaction whose state did not change:
   * a provider operation that failed after its request was answered 503 `pending` (contract §20:
   * the merchant is told the outcome by webhook). No transition is counted.
   */
  async recordUnchanged(
    manager: EntityManager,
    tx: Transaction,
    event: EventName,
    details: EventDetails,
  ): Promise<void> {
    await this.events.record(manager, tx, event, details);
  }

  /**
   * Inside the caller's unit of work: claims a payable transaction for one payment attempt before
   * the gateway is called (contract §17) — the conditional write that makes `referenceNumber` the
   * only attempt in flight. Returns the transaction as stored (what the attempt charges), or null
   * when it is not payable, past its deadline, or held by another attempt.
   */
  async claim(
    manager: EntityManager,
    transactionId: string,
    referenceNumber: string,
    now: Date = new Date(),
  ): Promise<Transaction | null> {
    const claimed = await this.transactions.claimForAttempt(
      transactionId,
      referenceNumber,
      PAYABLE_STATES,
      now,
      manager,
    );
    return claimed ? this.transactions.findByIdIn(transactionId, manager) : null;
  }

  /**
   * Inside the caller's unit of work: frees a transaction from an attempt that never charged (the
   * gateway does not know it): no state change, no event. False when that attempt no longer holds it.
   */
  release(manager: EntityManager, transactionId: string, referenceNumber: string): Promise<boolean> {
    return this.transactions.releaseAttempt(transactionId, referenceNumber, manager);
  }

  /**
   * Inside the caller's unit of work: keeps the transaction from expiring before `until` — a provider
   * session its customer left may take the payment until then (contract §20.1). Only moves it later.
   */
  watch(manager: EntityManager, transactionId: string, until: Date): Promise<void> {
    return this.transactions.watchUntil(transactionId, until, manager);
  }

  /** Inside the caller's unit of work: the expiry bound of {@link watch} as it is now (null: none). */
  setWatched(manager: EntityManager, transactionId: string, until: Date | null): Promise<void> {
    return this.transactions.setWatchedUntil(transactionId, until, manager);
  }

  /**
   * Inside the caller's unit of work: expires a payable transaction whose deadline has passed
   * (contract §7): used by the expiry job and by pay attempts. Null (no write) when it is not
   * payable or not yet due.
   */
  expireIfDueIn(
    manager: EntityManager,
    tx: Transaction,
    now: Date = new Date(),
    details: EventDetails = {},
  ): Promise<Change | null> {
    return this.applyIn(manager, tx, { trigger: 'expire', dueBy: now, now, details });
  }

  /**
   * One batch of the expiry job (contract §7), set-based, inside the job's unit of work: claims up
   * to `limit` payable transactions due at `now` (disjoint across replicas on MySQL), expires them
   * with one conditional UPDATE, and records their `expired` events and deliveries in bulk.
   * `claimed` is how many rows this call took (0: nothing left that is not held elsewhere).
   *
   * Exactly the rows the UPDATE changed get an event: on MySQL the claimed rows stay locked, so the
   * UPDATE changes every one of them; if the counts ever differ (a row changed between the pick
   * and the UPDATE), it throws {@link RacedBatch}, so that the caller's unit rolls back and the
   * caller expires the rows one by one ({@link expireIfDueIn}).
   */
  async expireDueBatch(
    manager: EntityManager,
    now: Date,
    limit: number,
  ): Promise<{ claimed: number; expired: number }> {
    const rule = ruleFor('expire');
    if (rule.to === 'same') throw new Error('The expire rule must change the state');
    const to = rule.to;
    const event = eventFor('expire', to);
    // Deadlines are compared with `now` (the sweep's instant); the write is stamped when it happens.
    const changes: Partial<Transaction> = { state: to, updatedAt: new Date() };
    const ids = await this.transactions.claimDue(rule.from, now, limit, manager);
    if (ids.length === 0) return { claimed: 0, expired: 0 };
    const changed = await this.transactions.transitionManyIf(
      ids,
      { from: rule.from, dueBy: now },
      changes,
      manager,
    );
    if (changed !== ids.length) throw new RacedBatch(ids);
    await this.events.recordMany(manager, await this.transactions.findByIdsIn(ids, manager), event);
    this.uow.afterCommit(manager, () => this.metrics.transitions.inc({ trigger: 'expire', to }, ids.length));
    return { claimed: ids.length, expired: ids.length };
  }
}

/** A batch whose conditional UPDATE did not change every claimed row (rolled back, retried per row). */
export class RacedBatch extends Error {
  constructor(readonly ids: string[]) {
    super('A row of the expiry batch changed between its pick and its update');
  }
}
