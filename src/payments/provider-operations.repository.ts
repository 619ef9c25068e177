import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { dateParam, isUniqueViolation } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { ProviderOperation, type ProviderOperationState } from './provider-operation.entity';

/** A provider's definite answer as stored on the operation. */
export interface OperationAnswer {
  state: Exclude<ProviderOperationState, 'pending'>;
  message: string | null;
}

/**
 * The durable record of provider operations (contract §20, §17). Every write that races another
 * replica is a conditional UPDATE whose row count says who won.
 */
@Injectable()
export class ProviderOperationsRepository {
  constructor(
    @InjectRepository(ProviderOperation) private readonly repo: Repository<ProviderOperation>,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * Writes a new pending operation, committed on its own before the provider is called. False when
   * its transaction already has an open one (the unique `open_transaction_id`).
   */
  async insertClaim(operation: ProviderOperation): Promise<boolean> {
    try {
      await this.uow.retrying(async (manager) => {
        const result = await manager
          .createQueryBuilder()
          .insert()
          .into(ProviderOperation)
          .values(operation)
          .updateEntity(false)
          .execute();
        const raw = result.raw as { insertId?: number | string } | number | undefined;
        const id: unknown = typeof raw === 'number' ? raw : (raw?.insertId ?? result.identifiers[0]?.id);
        if (typeof id === 'number' || typeof id === 'string') operation.id = String(id);
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Removes a claimed operation that was never sent to the provider (its plan went stale). */
  async deleteUnsent(id: string): Promise<void> {
    await this.uow.retrying((manager) =>
      manager.getRepository(ProviderOperation).delete({ id, state: 'pending', answeredAt: IsNull() }),
    );
  }

  /**
   * Takes the right to call the provider for a pending operation until `until`: only while nobody
   * else holds it (or their lease ran out), so two replicas never send the same key at once.
   */
  async takeLease(id: string, token: string, until: Date, now: Date = new Date()): Promise<boolean> {
    return this.uow.retrying(async (manager) => {
      const result = await manager
        .createQueryBuilder()
        .update(ProviderOperation)
        .set({ leaseToken: token, leasedUntil: until })
        .where('id = :id', { id })
        .andWhere("state = 'pending'")
        .andWhere('(leased_until IS NULL OR leased_until < :now)', { now: dateParam(manager, now) })
        .execute();
      return (result.affected ?? 0) === 1;
    });
  }

  /**
   * After a call that brought no answer: the lease is given back, but nobody may take it before
   * `until` (by then the provider has certainly finished with that call).
   */
  async holdLease(id: string, token: string, until: Date): Promise<void> {
    await this.uow.retrying((manager) =>
      manager
        .getRepository(ProviderOperation)
        .update({ id, leaseToken: token }, { leaseToken: null, leasedUntil: until }),
    );
  }

  /**
   * Stores the provider's answer, on its own and at once (contract §17): only while the operation
   * is pending, so a later copy of an answer changes nothing.
   */
  async storeAnswer(id: string, answer: OperationAnswer, at: Date = new Date()): Promise<void> {
    await this.uow.retrying((manager) =>
      manager
        .getRepository(ProviderOperation)
        .update({ id, state: 'pending' }, { ...answer, answeredAt: at, leaseToken: null, leasedUntil: null }),
    );
  }

  /**
   * Marks an answered operation settled and frees its transaction for the next operation, in the
   * unit of work that changes the transaction. False when it was settled already (another replica,
   * the request itself): the caller then changes nothing.
   */
  async markSettled(id: string, manager: EntityManager, at: Date = new Date()): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(ProviderOperation)
      .set({ settledAt: at, openTransactionId: null })
      .where('id = :id', { id })
      .andWhere("state <> 'pending'")
      .andWhere('settled_at IS NULL')
      .execute();
    return (result.affected ?? 0) === 1;
  }

  findById(id: string): Promise<ProviderOperation | null> {
    return this.repo.findOne({ where: { id } });
  }

  /** The transaction's open (unsettled) operation, if any. */
  findOpen(transactionId: string): Promise<ProviderOperation | null> {
    return this.repo.findOne({ where: { openTransactionId: transactionId } });
  }

  /** Operations not settled yet that were written before `before`, oldest first. */
  findUnsettled(before: Date, limit: number): Promise<ProviderOperation[]> {
    return this.repo
      .createQueryBuilder('o')
      .where('o.settled_at IS NULL')
      .andWhere('o.created_at < :before', { before: dateParam(this.repo.manager, before) })
      .orderBy('o.created_at', 'ASC')
      .limit(limit)
      .getMany();
  }

  listForTransaction(transactionId: string): Promise<ProviderOperation[]> {
    return this.repo.find({ where: { transactionId }, order: { id: 'ASC' } });
  }
}
