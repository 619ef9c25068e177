import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, Not, Repository } from 'typeorm';
import { dateParam } from '../database/db-values';
import { Dialect } from '../database/dialect';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { insertRow, selectOneBy } from '../database/single-row';
import { Transaction } from './transaction.entity';
import type { SearchPosition } from './search-cursor';
import { releasesOrderNo } from './state-machine';
import type { TransactionState } from './transaction-state';

/** The admin search's filters (contract §18); each one set narrows the result. */
export interface TransactionFilter {
  state?: TransactionState;
  orderNo?: string;
  customerEmail?: string;
  /** created_at ≥ this. */
  createdFrom?: Date;
  /** created_at < this. */
  createdBefore?: Date;
}

/**
 * Data access for transactions: one intent per method. A method that takes `manager` runs inside the
 * caller's unit of work (required: it never falls back to the pool); one that reads both inside and
 * outside a unit has two names (`findById` / `findByIdIn`).
 */
@Injectable()
export class TransactionsRepository {
  constructor(@InjectRepository(Transaction) private readonly repo: Repository<Transaction>) {}

  private of(manager: EntityManager): Repository<Transaction> {
    return manager.getRepository(Transaction);
  }

  /** Inside the caller's unit of work: one INSERT (no read-back SELECT), built by hand: the create's hot path. */
  async insert(transaction: Transaction, manager: EntityManager): Promise<void> {
    transaction.id = await insertRow(manager, Transaction, transaction);
  }

  /** By session id: one hand-built SELECT (the retrieve's hot path). */
  findBySessionId(sessionId: string): Promise<Transaction | null> {
    return selectOneBy(this.repo.manager, Transaction, 'session_id', sessionId);
  }

  findByQrCodeToken(token: string): Promise<Transaction | null> {
    return this.repo.findOne({ where: { qrCodeToken: token } });
  }

  /** By row id, outside any unit of work. */
  findById(id: string): Promise<Transaction | null> {
    return this.repo.findOne({ where: { id } });
  }

  /** {@link findById} inside the caller's unit of work. */
  findByIdIn(id: string, manager: EntityManager): Promise<Transaction | null> {
    return this.of(manager).findOne({ where: { id } });
  }

  /**
   * Up to `limit` transactions matching `filter`, newest first (created_at, then id, descending),
   * after `position` (a keyset: the index gives the rows in order, no offset is skipped over).
   * Deleted ones included: admins still see them.
   */
  search(filter: TransactionFilter, position: SearchPosition | null, limit: number): Promise<Transaction[]> {
    const date = (d: Date) => dateParam(this.repo.manager, d);
    const qb = this.repo.createQueryBuilder('t');
    if (filter.state !== undefined) qb.andWhere('t.state = :state', { state: filter.state });
    if (filter.orderNo !== undefined) qb.andWhere('t.order_no = :orderNo', { orderNo: filter.orderNo });
    if (filter.customerEmail !== undefined) {
      qb.andWhere('t.customer_email = :email', { email: filter.customerEmail });
    }
    if (filter.createdFrom) qb.andWhere('t.created_at >= :from', { from: date(filter.createdFrom) });
    if (filter.createdBefore) qb.andWhere('t.created_at < :before', { before: date(filter.createdBefore) });
    if (position) {
      // The first condition alone is an index range; the second drops the rows of that instant already shown.
      qb.andWhere('t.created_at <= :at', { at: date(position.createdAt) });
      qb.andWhere('(t.created_at < :at OR t.id < :id)', { id: position.id });
    }
    return qb.orderBy('t.created_at', 'DESC').addOrderBy('t.id', 'DESC').limit(limit).getMany();
  }

  /**
   * The transactions with this order_no, newest first. Compared exactly (contract §3): the rows a PAD
   * SPACE collation adds (`"A-1 "` finding `A-1`'s) are dropped here.
   */
  async findByOrderNo(orderNo: string): Promise<Transaction[]> {
    const rows = await this.repo.find({ where: { orderNo }, order: { id: 'DESC' } });
    return rows.filter((tx) => tx.orderNo === orderNo);
  }

  /** True when a live transaction (other than `exceptId`) holds this order_no. */
  async isOrderNoLive(orderNo: string, exceptId?: string): Promise<boolean> {
    const where = exceptId ? { liveOrderNo: orderNo, id: Not(exceptId) } : { liveOrderNo: orderNo };
    return (await this.repo.count({ where })) > 0;
  }

  /** True when any transaction (any state) was made with this gateway code. */
  usesGateway(pgCode: string): Promise<boolean> {
    return this.repo.exists({ where: { pgCode } });
  }

  /** True when any transaction (any state) is in this currency. */
  usesCurrency(currencyCode: string): Promise<boolean> {
    return this.repo.exists({ where: { currencyCode } });
  }

  /**
   * Writes `changes` only if the row still has `version` and one of `states`, and no payment attempt
   * holds it; bumps the version. Returns false when another writer got there first (the caller
   * re-reads and decides).
   */
  async updateIfCurrent(
    id: string,
    version: number,
    states: readonly TransactionState[],
    changes: Partial<Transaction>,
    manager: EntityManager,
  ): Promise<boolean> {
    const result = await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ ...withOrderNoRelease(changes), version: version + 1 } as QueryDeepPartialEntity<Transaction>)
      .where({ id, version, state: In([...states]), attemptInFlight: IsNull() })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /**
   * Hides a transaction (the `delete` operation, contract §16) and releases its order_no, only while it
   * is in one of `states`, not hidden yet and not held by a payment attempt; bumps the version.
   */
  async hide(
    id: string,
    states: readonly TransactionState[],
    now: Date,
    manager: EntityManager,
  ): Promise<boolean> {
    const result = await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ deletedAt: now, liveOrderNo: null, updatedAt: now, version: () => 'version + 1' })
      .where({ id, state: In([...states]), deletedAt: IsNull(), attemptInFlight: IsNull() })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /**
   * Claims a payable transaction for one payment attempt (contract §17) before the gateway is called:
   * sets `attempt_in_flight` only while the row is in one of `payable`, before its deadline, and
   * no other attempt holds it. False when any of that does not hold.
   */
  async claimForAttempt(
    id: string,
    referenceNumber: string,
    payable: readonly TransactionState[],
    now: Date,
    manager: EntityManager,
  ): Promise<boolean> {
    const result = await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ attemptInFlight: referenceNumber })
      .where('id = :id', { id })
      .andWhere('state IN (:...payable)', { payable: [...payable] })
      .andWhere('attempt_in_flight IS NULL')
      .andWhere('expires_at > :now', { now: dateParam(manager, now) })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /**
   * Keeps the transaction from expiring before `until` (contract §20.1: a provider session its
   * customer left may take the payment until then). Only ever moves the bound later.
   */
  async watchUntil(id: string, until: Date, manager: EntityManager): Promise<void> {
    await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ watchedUntil: until })
      .where('id = :id', { id })
      .andWhere('(watched_until IS NULL OR watched_until < :until)', { until: dateParam(manager, until) })
      .execute();
  }

  /** Sets the expiry bound of {@link watchUntil} as it is now: the latest of the sessions still watched. */
  async setWatchedUntil(id: string, until: Date | null, manager: EntityManager): Promise<void> {
    await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ watchedUntil: until })
      .where('id = :id', { id })
      .execute();
  }

  /** Frees the transaction from an attempt that never charged (no state change). */
  async releaseAttempt(id: string, referenceNumber: string, manager: EntityManager): Promise<boolean> {
    const result = await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ attemptInFlight: null })
      .where('id = :id AND attempt_in_flight = :referenceNumber', { id, referenceNumber })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /**
   * The state machine's conditional write (see TransitionService): changes the row only while it
   * is in one of `guard.from` (and, when given, still at `guard.version`, and with its deadline at
   * or before `guard.dueBy`); bumps the version. A row held by a payment attempt changes only by
   * that attempt's settlement (`guard.settles`, which also frees it). False when the guard did not
   * hold.
   */
  async transitionIf(
    id: string,
    guard: { from: readonly TransactionState[]; version?: number; dueBy?: Date; settles?: string },
    changes: Partial<Transaction>,
    manager: EntityManager,
  ): Promise<boolean> {
    const query = this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({
        ...withOrderNoRelease(changes),
        ...(guard.settles ? { attemptInFlight: null } : {}),
        version: () => 'version + 1',
      } as QueryDeepPartialEntity<Transaction>)
      .where('id = :id', { id })
      .andWhere('state IN (:...from)', { from: [...guard.from] });
    if (guard.settles) query.andWhere('attempt_in_flight = :settles', { settles: guard.settles });
    else query.andWhere('attempt_in_flight IS NULL');
    if (guard.version !== undefined) query.andWhere('version = :version', { version: guard.version });
    if (guard.dueBy) {
      // Expiry waits for a provider session a customer left that may still take money (§20.1).
      query
        .andWhere('expires_at <= :dueBy', { dueBy: dateParam(manager, guard.dueBy) })
        .andWhere('(watched_until IS NULL OR watched_until <= :dueBy)');
    }
    const result = await query.execute();
    return (result.affected ?? 0) === 1;
  }

  /**
   * Picks up to `limit` transactions in one of `from` whose deadline is at or before `dueBy`, for
   * the expiry job (contract §7), skipping those a payment attempt holds (it settles them). Oldest state range first, in the order of the (state, expires_at)
   * index, so the scan stops after `limit` rows. On MySQL the rows are locked with
   * `FOR UPDATE SKIP LOCKED` until the caller's DB transaction ends: replicas take disjoint
   * batches, and a row another writer holds (a payment being recorded) is skipped, not waited for.
   * SQLite has a single writer and no row locks.
   */
  async claimDue(
    from: readonly TransactionState[],
    dueBy: Date,
    limit: number,
    manager: EntityManager,
  ): Promise<string[]> {
    const dialect = Dialect.of(manager);
    const states = from.map(() => '?').join(', ');
    const rows = await manager.query<{ id: string | number }[]>(
      `SELECT id FROM transactions${dialect.forceIndex('idx_transactions_state_expires_at')}
       WHERE state IN (${states}) AND expires_at <= ? AND attempt_in_flight IS NULL
         AND (watched_until IS NULL OR watched_until <= ?)
       ORDER BY state, expires_at LIMIT ?${dialect.skipLocked}`,
      [...from, dialect.dateParam(dueBy), dialect.dateParam(dueBy), limit],
    );
    return rows.map((r) => String(r.id));
  }

  /**
   * `transitionIf` for many rows in one statement: changes those of `ids` still in one of
   * `guard.from` with their deadline at or before `guard.dueBy`; bumps each version. Returns how
   * many rows it changed.
   */
  async transitionManyIf(
    ids: readonly string[],
    guard: { from: readonly TransactionState[]; dueBy: Date },
    changes: Partial<Transaction>,
    manager: EntityManager,
  ): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({
        ...withOrderNoRelease(changes),
        version: () => 'version + 1',
      } as QueryDeepPartialEntity<Transaction>)
      .where('id IN (:...ids)', { ids: [...ids] })
      .andWhere('state IN (:...from)', { from: [...guard.from] })
      .andWhere('expires_at <= :dueBy', { dueBy: dateParam(manager, guard.dueBy) })
      .andWhere('(watched_until IS NULL OR watched_until <= :dueBy)')
      .andWhere('attempt_in_flight IS NULL')
      .execute();
    return result.affected ?? 0;
  }

  /** By row ids, outside any unit of work. */
  findByIds(ids: readonly string[]): Promise<Transaction[]> {
    return this.byIds(this.repo, ids);
  }

  /** {@link findByIds} inside the caller's unit of work. */
  findByIdsIn(ids: readonly string[], manager: EntityManager): Promise<Transaction[]> {
    return this.byIds(this.of(manager), ids);
  }

  private byIds(repo: Repository<Transaction>, ids: readonly string[]): Promise<Transaction[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return repo.find({ where: { id: In([...ids]) }, order: { id: 'ASC' } });
  }

  /**
   * Bumps the transaction's event counter and reads it back in one statement. The UPDATE locks the
   * transaction's row until commit (MySQL), and SQLite serialises writers, so two events never
   * share a number.
   */
  async nextEventSequence(id: string, manager: EntityManager): Promise<number> {
    const next = await Dialect.of(manager).increment(manager, 'transactions', 'event_sequence', id);
    if (next === null) throw new Error(`Transaction ${id} not found for its event`);
    return next;
  }

  /** `nextEventSequence` for many transactions: one UPDATE and one SELECT; id → its new number. */
  async nextEventSequences(ids: readonly string[], manager: EntityManager): Promise<Map<string, number>> {
    const repo = manager.getRepository(Transaction);
    await repo
      .createQueryBuilder()
      .update()
      .set({ eventSequence: () => 'event_sequence + 1' })
      .whereInIds([...ids])
      .updateEntity(false)
      .execute();
    const rows = await repo.find({ select: { id: true, eventSequence: true }, where: { id: In([...ids]) } });
    return new Map(rows.map((r) => [String(r.id), Number(r.eventSequence)]));
  }
}

/**
 * Every write that moves a transaction to `canceled` or `expired` also releases its order_no
 * (contract §4: reusable once no live transaction holds it), whichever path makes the move.
 */
function withOrderNoRelease(changes: Partial<Transaction>): Partial<Transaction> {
  return changes.state && releasesOrderNo(changes.state) ? { ...changes, liveOrderNo: null } : changes;
}
