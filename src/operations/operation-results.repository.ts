import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { dateParam, isUniqueViolation } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { OperationResult } from './operation-result.entity';

/** A claim is older than this while still running: its request died; the next repeat takes over. */
const STALE_CLAIM_MS = 60_000;

export type TrackingClaim =
  { kind: 'claimed'; id: string } | { kind: 'running' } | { kind: 'done'; row: OperationResult };

@Injectable()
export class OperationResultsRepository {
  constructor(
    @InjectRepository(OperationResult) private readonly repo: Repository<OperationResult>,
    private readonly uow: UnitOfWork,
  ) {}

  /** Claims (scope, key) for this request, or reports the first request's state. */
  async claim(scope: string, trackingKey: string, requestHash: string): Promise<TrackingClaim> {
    const now = new Date();
    try {
      const result = await this.uow.retrying(() =>
        this.repo
          .createQueryBuilder()
          .insert()
          .into(OperationResult)
          .values({
            scope,
            trackingKey,
            requestHash,
            statusCode: null,
            body: null,
            createdAt: now,
            completedAt: null,
          })
          .updateEntity(false)
          .execute(),
      );
      const raw = result.raw as { insertId?: number | string } | undefined;
      const id: unknown = raw?.insertId ?? result.identifiers[0]?.id;
      if (typeof id === 'number' || typeof id === 'string') return { kind: 'claimed', id: String(id) };
      const row = await this.repo.findOneOrFail({ where: { scope, trackingKey } });
      return { kind: 'claimed', id: row.id };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const row = await this.repo.findOne({ where: { scope, trackingKey } });
    if (!row) return { kind: 'running' };
    if (row.statusCode !== null) return { kind: 'done', row };
    const takeover = await this.uow.retrying(() =>
      this.repo
        .createQueryBuilder()
        .update(OperationResult)
        .set({ createdAt: now, requestHash })
        .where('id = :id AND status_code IS NULL AND created_at < :before', {
          id: row.id,
          before: dateParam(this.repo.manager, new Date(now.getTime() - STALE_CLAIM_MS)),
        })
        .execute(),
    );
    return (takeover.affected ?? 0) === 1 ? { kind: 'claimed', id: row.id } : { kind: 'running' };
  }

  async complete(id: string, statusCode: number, body: Record<string, unknown>): Promise<void> {
    await this.uow.retrying(() =>
      this.repo.update({ id, statusCode: IsNull() }, {
        statusCode,
        body,
        completedAt: new Date(),
      } as QueryDeepPartialEntity<OperationResult>),
    );
  }

  /** Forgets a claim whose request failed unexpectedly, so a repeat may run it. */
  async release(id: string): Promise<void> {
    await this.uow.retrying(() => this.repo.delete({ id, statusCode: IsNull() }));
  }
}
