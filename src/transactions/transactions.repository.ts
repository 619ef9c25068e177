import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Not, Repository } from 'typeorm';
import { dateParam } from '../database/db-values';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { insertedId } from '../database/db-values';
import { Transaction } from './transaction.entity';
import type { TransactionState } from './transaction-state';

/** Data access for transactions: one intent per method; each can join a caller's DB transaction. */
@Injectable()
export class TransactionsRepository {
  constructor(@InjectRepository(Transaction) private readonly repo: Repository<Transaction>) {}

  private of(manager?: EntityManager): Repository<Transaction> {
    return manager ? manager.getRepository(Transaction) : this.repo;
  }

  /** One INSERT (no read-back SELECT): every column value is set by the caller. */
  async insert(transaction: Transaction, manager?: EntityManager): Promise<void> {
    const result = await this.of(manager)
      .createQueryBuilder()
      .insert()
      .into(Transaction)
      .values(transaction as QueryDeepPartialEntity<Transaction>)
      .updateEntity(false)
      .execute();
    transaction.id = insertedId(result);
  }

  findBySessionId(sessionId: string, manager?: EntityManager): Promise<Transaction | null> {
    return this.of(manager).findOne({ where: { sessionId } });
  }

  findById(id: string, manager?: EntityManager): Promise<Transaction | null> {
    return this.of(manager).findOne({ where: { id } });
  }

  findByOrderNo(orderNo: string, manager?: EntityManager): Promise<Transaction[]> {
    return this.of(manager).find({ where: { orderNo }, order: { id: 'DESC' } });
  }

  /** True when a live transaction (other than `exceptId`) holds this order_no. */
  async isOrderNoLive(orderNo: string, exceptId?: string): Promise<boolean> {
    const where = exceptId ? { liveOrderNo: orderNo, id: Not(exceptId) } : { liveOrderNo: orderNo };
    return (await this.repo.count({ where })) > 0;
  }

  /**
   * Writes `changes` only if the row still has `version` and one of `states`; bumps the version.
   * Returns false when another writer got there first (the caller re-reads and decides).
   */
  async updateIfCurrent(
    id: string,
    version: number,
    states: readonly TransactionState[],
    changes: Partial<Transaction>,
    manager?: EntityManager,
  ): Promise<boolean> {
    const result = await this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ ...changes, version: version + 1 } as QueryDeepPartialEntity<Transaction>)
      .where({ id, version, state: In([...states]) })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /**
   * The state machine's conditional write (see TransitionService): changes the row only while it
   * is in one of `guard.from` (and, when given, still at `guard.version`, and with its deadline at
   * or before `guard.dueBy`); bumps the version. False when the guard did not hold.
   */
  async transitionIf(
    id: string,
    guard: { from: readonly TransactionState[]; version?: number; dueBy?: Date },
    changes: Partial<Transaction>,
    manager: EntityManager,
  ): Promise<boolean> {
    const query = this.of(manager)
      .createQueryBuilder()
      .update(Transaction)
      .set({ ...changes, version: () => 'version + 1' } as QueryDeepPartialEntity<Transaction>)
      .where('id = :id', { id })
      .andWhere('state IN (:...from)', { from: [...guard.from] });
    if (guard.version !== undefined) query.andWhere('version = :version', { version: guard.version });
    if (guard.dueBy) query.andWhere('expires_at <= :dueBy', { dueBy: dateParam(manager, guard.dueBy) });
    const result = await query.execute();
    return (result.affected ?? 0) === 1;
  }
}
