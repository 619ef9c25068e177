import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { dateParam } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import {
  PaymentAttempt,
  type AttemptCard,
  type AttemptReconciliation,
  type AttemptResult,
} from './payment-attempt.entity';

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

  /**
   * Marks the attempt settled, in the unit of work that settles its transaction, with how it ended
   * against it (contract §20.1 reconciliation). False when it was settled already.
   */
  async markSettled(
    referenceNumber: string,
    manager: EntityManager,
    reconciliation: AttemptReconciliation = 'matched',
    at: Date = new Date(),
  ): Promise<boolean> {
    const result = await manager
      .getRepository(PaymentAttempt)
      .update({ referenceNumber, settledAt: IsNull() }, { settledAt: at, reconciliation });
    return (result.affected ?? 0) === 1;
  }

  /**
   * The customer left the attempt while its provider session may still take money (contract §20.1):
   * marked in the unit of work that frees its transaction. False when it was settled or left already.
   */
  async markLeft(referenceNumber: string, manager: EntityManager, at: Date = new Date()): Promise<boolean> {
    const result = await manager
      .getRepository(PaymentAttempt)
      .update({ referenceNumber, settledAt: IsNull(), leftAt: IsNull() }, { leftAt: at });
    return (result.affected ?? 0) === 1;
  }

  /** A left attempt the customer went back to: it holds its transaction again (same unit as the claim). */
  async markResumed(referenceNumber: string, manager: EntityManager): Promise<boolean> {
    const result = await manager
      .getRepository(PaymentAttempt)
      .update({ referenceNumber, settledAt: IsNull() }, { leftAt: null });
    return (result.affected ?? 0) === 1;
  }

  /**
   * A left attempt whose provider session can no longer take money and took none (contract §20.1):
   * closed with no transition (the customer had already been let go).
   */
  async markClosed(
    referenceNumber: string,
    manager: EntityManager,
    responseCode: string,
    at: Date = new Date(),
  ): Promise<boolean> {
    const result = await manager.getRepository(PaymentAttempt).update(
      { referenceNumber, settledAt: IsNull() },
      {
        result: 'error',
        responseCode,
        completedAt: at,
        settledAt: at,
        reconciliation: 'matched',
      },
    );
    return (result.affected ?? 0) === 1;
  }

  /** Records that a settled attempt's provider now reports another outcome (a person must look). */
  async markMismatch(referenceNumber: string): Promise<void> {
    await this.repo.update({ referenceNumber }, { reconciliation: 'mismatch' });
  }

  /** An attempt the gateway never saw: an error that charged nothing, settled with no transition. */
  async markNeverCharged(
    referenceNumber: string,
    manager: EntityManager,
    at: Date = new Date(),
  ): Promise<void> {
    await manager.getRepository(PaymentAttempt).update(
      { referenceNumber, settledAt: IsNull() },
      {
        result: 'error',
        responseCode: 'not-at-gateway',
        completedAt: at,
        settledAt: at,
        reconciliation: 'matched',
      },
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

  /** The transaction's attempts not settled yet (the one holding it, and those left), newest first. */
  listUnsettled(transactionId: string): Promise<PaymentAttempt[]> {
    return this.repo.find({ where: { transactionId, settledAt: IsNull() }, order: { id: 'DESC' } });
  }

  /**
   * Attempts started in `[since, until)` for the reconciliation report (contract §20.1), newest
   * first, at most `limit`; and the counts per gateway code and status over the whole period.
   */
  async reconciliation(
    since: Date,
    until: Date,
    limit: number,
  ): Promise<{ attempts: PaymentAttempt[]; counts: { pgCode: string; status: string; count: number }[] }> {
    const window = (q: ReturnType<Repository<PaymentAttempt>['createQueryBuilder']>) =>
      q
        .where('a.created_at >= :since', { since: dateParam(this.repo.manager, since) })
        .andWhere('a.created_at < :until', { until: dateParam(this.repo.manager, until) });
    const status = `CASE WHEN a.settled_at IS NULL THEN 'pending' WHEN a.reconciliation = 'mismatch' THEN 'mismatch' ELSE 'matched' END`;
    const [attempts, counts] = await Promise.all([
      window(this.repo.createQueryBuilder('a'))
        .orderBy('a.created_at', 'DESC')
        .addOrderBy('a.id', 'DESC')
        .limit(limit)
        .getMany(),
      window(this.repo.createQueryBuilder('a'))
        .select('a.pg_code', 'pgCode')
        .addSelect(status, 'status')
        .addSelect('COUNT(*)', 'count')
        .groupBy('a.pg_code')
        .addGroupBy(status)
        .getRawMany<{ pgCode: string; status: string; count: string | number }>(),
    ]);
    return {
      attempts,
      counts: counts.map((row) => ({ pgCode: row.pgCode, status: row.status, count: Number(row.count) })),
    };
  }

  listForTransaction(transactionId: string): Promise<PaymentAttempt[]> {
    return this.repo.find({ where: { transactionId }, order: { id: 'ASC' } });
  }

  /** The last successful attempt (what capture, void and refund apply to). */
  findLastSuccess(transactionId: string): Promise<PaymentAttempt | null> {
    return this.repo.findOne({ where: { transactionId, result: 'success' }, order: { id: 'DESC' } });
  }
}
