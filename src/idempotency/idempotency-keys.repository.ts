import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { dateParam, isUniqueViolation } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { IdempotencyKey } from './idempotency-key.entity';

/** The in-flight row of (scope, key, route) claimed with this token. */
const HELD_BY =
  "scope = :scope AND idempotency_key = :key AND route = :route AND status = 'in_flight' AND claim_token = :claimToken";

/** The (credential, key, route) a row is found by. */
export interface KeyRef {
  scope: string;
  key: string;
  route: string;
}

/** What a request writes when it claims a key. */
export interface ClaimValues {
  fingerprint: string;
  claimToken: string;
  lockedUntil: Date;
  createdAt: Date;
}

/** A response as stored for replay. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The rows of `idempotency_keys` (contract §11). Every change is conditional: no check-then-write.
 * Writes race other replicas (on Galera, other nodes), so each is retried on a conflict.
 */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(
    @InjectRepository(IdempotencyKey) private readonly repo: Repository<IdempotencyKey>,
    private readonly uow: UnitOfWork,
  ) {}

  /** INSERTs an in-flight row; false when (scope, key, route) already has one (the unique key). */
  async insertClaim(ref: KeyRef, values: ClaimValues): Promise<boolean> {
    try {
      await this.uow.retrying((m) =>
        m
          .withRepository(this.repo)
          .createQueryBuilder()
          .insert()
          .into(IdempotencyKey)
          .values({
            ...ref,
            ...values,
            status: 'in_flight',
            responseStatus: null,
            responseHeaders: null,
            responseBody: null,
          })
          .updateEntity(false)
          .execute(),
      );
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  find(ref: KeyRef): Promise<IdempotencyKey | null> {
    return this.repo.findOne({ where: { scope: ref.scope, key: ref.key, route: ref.route } });
  }

  /** Claims an expired row (created before `cutoff`) afresh, as if it were absent. */
  async reclaimExpired(id: string, cutoff: Date, values: ClaimValues): Promise<boolean> {
    const result = await this.uow.retrying((m) =>
      m
        .withRepository(this.repo)
        .createQueryBuilder()
        .update(IdempotencyKey)
        .set({
          ...values,
          status: 'in_flight',
          responseStatus: null,
          responseHeaders: null,
          responseBody: null,
        })
        .where('id = :id AND created_at < :cutoff', { id, cutoff: dateParam(this.repo.manager, cutoff) })
        .execute(),
    );
    return (result.affected ?? 0) === 1;
  }

  /** Takes over an in-flight claim whose lease ran out (its request died), for the same request. */
  async takeOver(
    id: string,
    previousToken: string,
    now: Date,
    values: Pick<ClaimValues, 'claimToken' | 'lockedUntil'>,
  ): Promise<boolean> {
    const result = await this.uow.retrying((m) =>
      m
        .withRepository(this.repo)
        .createQueryBuilder()
        .update(IdempotencyKey)
        .set(values)
        .where("id = :id AND status = 'in_flight' AND claim_token = :previousToken AND locked_until < :now", {
          id,
          previousToken,
          now: dateParam(this.repo.manager, now),
        })
        .execute(),
    );
    return (result.affected ?? 0) === 1;
  }

  /** Stores the response of the request holding the claim. */
  async complete(ref: KeyRef, claimToken: string, response: StoredResponse): Promise<boolean> {
    const result = await this.uow.retrying((m) =>
      m
        .withRepository(this.repo)
        .createQueryBuilder()
        .update(IdempotencyKey)
        .set({
          status: 'done',
          lockedUntil: null,
          responseStatus: response.status,
          responseHeaders: response.headers,
          responseBody: response.body,
        })
        .where(HELD_BY, { ...ref, claimToken })
        .execute(),
    );
    return (result.affected ?? 0) === 1;
  }

  /** Forgets the claim of the request holding it: the key is free again. */
  async release(ref: KeyRef, claimToken: string): Promise<void> {
    await this.uow.retrying((m) =>
      m
        .withRepository(this.repo)
        .createQueryBuilder()
        .delete()
        .from(IdempotencyKey)
        .where(HELD_BY, { ...ref, claimToken })
        .execute(),
    );
  }

  /**
   * Deletes up to `limit` rows created before `cutoff`; returns how many. The delete re-checks
   * the age, so a row claimed afresh meanwhile stays.
   */
  async deleteCreatedBefore(cutoff: Date, limit: number): Promise<number> {
    const at = dateParam(this.repo.manager, cutoff);
    const rows = await this.repo
      .createQueryBuilder('k')
      .select('k.id', 'id')
      .where('k.created_at < :at', { at })
      .orderBy('k.created_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string | number }>();
    if (rows.length === 0) return 0;
    const result = await this.uow.retrying((m) =>
      m
        .withRepository(this.repo)
        .createQueryBuilder()
        .delete()
        .from(IdempotencyKey)
        .where({ id: In(rows.map((row) => String(row.id))) })
        .andWhere('created_at < :at', { at })
        .execute(),
    );
    return result.affected ?? rows.length;
  }
}
