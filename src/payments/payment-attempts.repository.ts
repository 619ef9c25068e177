import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { dateParam } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { PaymentAttempt, type AttemptCard, type AttemptResult } from './payment-attempt.entity';

/** A gateway's answer as stored on the attempt. */
export interface StoredAnswer {
  result: Exclude<AttemptResult, 'pending'>;
  responseCode: string;
  /** The gateway's token of a card it saved (contract §15). */
  gatewayToken?: string | null;
  /** The attempt's card as the provider described it (a redirect attempt's card; contract §15). */
  card?: AttemptCard;
}

/** Where a reconciler pass stopped: the last attempt it looked at. */
export interface UnsettledCursor {
  createdAt: Date;
  id: string;
}

@Injectable()
export class PaymentAttemptsRepository {
  constructor(
    @InjectRepository(PaymentAttempt) private readonly repo: Repository<PaymentAttempt>,
    private readonly uow: UnitOfWork,
  ) {}

  /** One INSERT, inside the unit of work that claimed the transaction for this attempt. */
  async insert(attempt: PaymentAttempt, manager: EntityManager): Promise<void> {
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(PaymentAttempt)
      .values(attempt)
      .updateEntity(false)
      .execute();
    const raw = result.raw as { insertId?: number | string } | number | undefined;
    const id: unknown = typeof raw === 'number' ? raw : (raw?.insertId ?? result.identifiers[0]?.id);
    if (typeof id === 'number' || typeof id === 'string') attempt.id = String(id);
  }

  /**
   * Stores the gateway's answer, on its own and at once (contract §17: before anything else can fail).
   * Only while the attempt is still pending: a later copy of the same answer changes nothing.
   */
  async storeAnswer(
    referenceNumber: string,
    answer: StoredAnswer,
    provider?: Record<string, string>,
    at: Date = new Date(),
  ): Promise<void> {
    await this.uow.retrying(async (m) => {
      const merged = provider ? await this.mergedProvider(m, referenceNumber, provider) : undefined;
      await m
        .withRepository(this.repo)
        .update(
          { referenceNumber, result: 'pending' },
          { ...answer, completedAt: at, ...(merged ? { provider: merged } : {}) },
        );
    });
  }

  /**
   * Stores what a redirect provider keeps of the attempt (its session), merged into what is there,
   * before the customer is sent to it (contract §17).
   */
  async storeProvider(referenceNumber: string, provider: Record<string, string>): Promise<void> {
    await this.uow.retrying(async (m) => {
      const merged = await this.mergedProvider(m, referenceNumber, provider);
      await m.withRepository(this.repo).update({ referenceNumber }, { provider: merged });
    });
  }

  private async mergedProvider(
    manager: EntityManager,
    referenceNumber: string,
    provider: Record<string, string>,
  ): Promise<Record<string, string>> {
    const stored = await manager.withRepository(this.repo).findOne({
      where: { referenceNumber },
      select: { id: true, provider: true },
    });
    return { ...(stored?.provider ?? {}), ...provider };
  }

  /** Marks the attempt settled, in the unit of work that settles its transaction. */
  async markSettled(referenceNumber: string, manager: EntityManager, at: Date = new Date()): Promise<void> {
    await manager
      .getRepository(PaymentAttempt)
      .update({ referenceNumber, settledAt: IsNull() }, { settledAt: at });
  }

  /** An attempt the gateway never saw: an error that charged nothing, settled with no transition. */
  async markNeverCharged(
    referenceNumber: string,
    manager: EntityManager,
    at: Date = new Date(),
  ): Promise<void> {
    await manager
      .getRepository(PaymentAttempt)
      .update(
        { referenceNumber, settledAt: IsNull() },
        { result: 'error', responseCode: 'not-at-gateway', completedAt: at, settledAt: at },
      );
  }

  findByReference(referenceNumber: string): Promise<PaymentAttempt | null> {
    return this.repo.findOne({ where: { referenceNumber } });
  }

  /**
   * Attempts not settled yet that were started before `before`, oldest first; with `after`, only
   * those after that one (by start, then id): the reconciler's window moves on past attempts that
   * stay open for hours, so they cannot hold back the ones behind them.
   */
  findUnsettled(before: Date, limit: number, after?: UnsettledCursor): Promise<PaymentAttempt[]> {
    const query = this.repo
      .createQueryBuilder('a')
      .where('a.settled_at IS NULL')
      .andWhere('a.created_at < :before', { before: dateParam(this.repo.manager, before) });
    if (after) {
      query.andWhere('(a.created_at > :afterAt OR (a.created_at = :afterAt AND a.id > :afterId))', {
        afterAt: dateParam(this.repo.manager, after.createdAt),
        afterId: after.id,
      });
    }
    return query.orderBy('a.created_at', 'ASC').addOrderBy('a.id', 'ASC').limit(limit).getMany();
  }

  listForTransaction(transactionId: string): Promise<PaymentAttempt[]> {
    return this.repo.find({ where: { transactionId }, order: { id: 'ASC' } });
  }

  /** The last successful attempt (what capture, void and refund apply to). */
  findLastSuccess(transactionId: string): Promise<PaymentAttempt | null> {
    return this.repo.findOne({ where: { transactionId, result: 'success' }, order: { id: 'DESC' } });
  }
}
