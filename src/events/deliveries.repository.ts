import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, EntityManager, In, Repository } from 'typeorm';
import { bulkInsert } from '../database/bulk-insert';
import { dateParam, insertedId, isLockConflict, rawDate } from '../database/db-values';
import { statement } from '../database/single-row';
import { UnitOfWork } from '../database/unit-of-work';
import { DeliveryAttempt } from './delivery-attempt.entity';
import { Delivery, DeliveryChannel, DeliveryStatus, newDeliveryRow } from './delivery.entity';
import type { DeliveryOutcome } from './delivery-outcome';
import { OutboxEvent } from './event.entity';

/** What finishing an attempt writes. */
export interface AttemptResult {
  outcome: DeliveryOutcome;
  attemptedAt: Date;
  durationMs: number;
  status: DeliveryStatus;
  nextAttemptAt: Date;
}

/** At most this many finishes per pair of statements. */
const FINISH_BATCH = 100;
/** How long a finish waits for others to share its statements (the row stays claimed meanwhile). */
const FINISH_WINDOW_MS = 2;

interface Finishing {
  delivery: Delivery;
  result: AttemptResult;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function attemptRow({ delivery, result }: Finishing): Partial<DeliveryAttempt> {
  return {
    deliveryId: delivery.id,
    attemptedAt: result.attemptedAt,
    statusCode: result.outcome.statusCode,
    durationMs: result.durationMs,
    error: result.outcome.error?.slice(0, 500) ?? null,
    responseBody: result.outcome.responseBody,
  };
}

/**
 * One UPDATE for many finished deliveries, each moved on as its own outcome says — only while the
 * worker still holds its claim: a worker that stalled past its lease must not release (or
 * overwrite the outcome of) the claim another worker has taken since.
 */
async function markFinished(manager: EntityManager, batch: readonly Finishing[]): Promise<void> {
  const params: unknown[] = [];
  const perRow = (value: (item: Finishing) => unknown): string => {
    const cases = batch.map((item) => {
      params.push(item.delivery.id, value(item));
      return 'WHEN ? THEN ?';
    });
    return `CASE id ${cases.join(' ')} END`;
  };
  const date = (d: Date) => dateParam(manager, d);
  const sets = [
    `status = ${perRow((i) => i.result.status)}`,
    'attempts = attempts + 1',
    `next_attempt_at = ${perRow((i) => date(i.result.nextAttemptAt))}`,
    'claimed_by = NULL',
    'claimed_until = NULL',
    `last_attempt_at = ${perRow((i) => date(i.result.attemptedAt))}`,
    `last_status_code = ${perRow((i) => i.result.outcome.statusCode)}`,
    `last_error = ${perRow((i) => i.result.outcome.error?.slice(0, 500) ?? null)}`,
  ];
  const where = batch.map((item) => {
    params.push(item.delivery.id, item.delivery.claimedBy);
    return '(id = ? AND claimed_by = ?)';
  });
  await statement(manager, `UPDATE deliveries SET ${sets.join(', ')} WHERE ${where.join(' OR ')}`, params);
}

/** Outbox rows: claims, attempt results, listings. */
@Injectable()
export class DeliveriesRepository {
  /** Finishes waiting for the next write (see {@link finish}). */
  private readonly finishing: Finishing[] = [];

  constructor(
    @InjectRepository(Delivery) private readonly deliveries: Repository<Delivery>,
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
    @InjectRepository(DeliveryAttempt) private readonly attempts: Repository<DeliveryAttempt>,
    private readonly uow: UnitOfWork,
  ) {}

  /** Pending deliveries per channel, with when the oldest was written (the outbox backlog). */
  async backlog(): Promise<{ channel: DeliveryChannel; pending: number; oldest: Date | null }[]> {
    const rows = await this.deliveries
      .createQueryBuilder('d')
      .select('d.channel', 'channel')
      .addSelect('COUNT(*)', 'pending')
      .addSelect('MIN(d.created_at)', 'oldest')
      .where('d.status = :pending', { pending: 'pending' })
      .groupBy('d.channel')
      .getRawMany<{ channel: DeliveryChannel; pending: number | string; oldest: unknown }>();
    return rows.map((r) => ({ channel: r.channel, pending: Number(r.pending), oldest: rawDate(r.oldest) }));
  }

  /**
   * Claims up to `limit` due deliveries for `token` until `leaseUntil`. One code path for both
   * dialects: a conditional UPDATE that only takes rows still pending, due and unclaimed (or whose
   * lease ran out), then a read of the rows that carry this claim's token. Two workers racing for
   * a row: the second UPDATE re-checks the condition after the first committed and skips it.
   */
  async claimDue(token: string, now: Date, leaseUntil: Date, limit: number): Promise<Delivery[]> {
    const due = (qb: { andWhere: (w: Brackets | string, p?: object) => unknown }) => {
      qb.andWhere('status = :pending', { pending: 'pending' });
      qb.andWhere('next_attempt_at <= :now', { now: dateParam(this.deliveries.manager, now) });
      qb.andWhere(
        new Brackets((b) =>
          b
            .where('claimed_until IS NULL')
            .orWhere('claimed_until < :now', { now: dateParam(this.deliveries.manager, now) }),
        ),
      );
    };
    const candidates = this.deliveries
      .createQueryBuilder('d')
      .select('d.id', 'id')
      .where('1 = 1')
      .orderBy('d.next_attempt_at', 'ASC')
      .addOrderBy('d.id', 'ASC')
      .limit(limit);
    due(candidates);
    const ids = (await candidates.getRawMany<{ id: string | number }>()).map((r) => String(r.id));
    if (ids.length === 0) return [];
    const claim = this.deliveries
      .createQueryBuilder()
      .update(Delivery)
      .set({ claimedBy: token, claimedUntil: leaseUntil })
      .where({ id: In(ids) });
    due(claim);
    let result: { affected?: number | null };
    try {
      result = await claim.execute();
    } catch (error) {
      // Another worker holds or just took these rows: this pass simply gets none of them.
      if (isLockConflict(error)) return [];
      throw error;
    }
    if (!result.affected) return [];
    return this.deliveries.find({ where: { id: In(ids), claimedBy: token }, order: { id: 'ASC' } });
  }

  /**
   * Logs the attempt and moves the delivery on (done, failed or pending again), releasing the claim
   * — if this worker still holds it; the attempt is logged either way. Finishes that complete
   * within {@link FINISH_WINDOW_MS} of each other are written together: one multi-row INSERT of
   * their attempts, one UPDATE of their rows.
   */
  finish(delivery: Delivery, result: AttemptResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.finishing.push({ delivery, result, resolve, reject });
      if (this.finishing.length === 1) setTimeout(() => void this.flushFinishes(), FINISH_WINDOW_MS);
    });
  }

  /**
   * Two statements, each its own transaction (no BEGIN/COMMIT round trips, no lock held from one to
   * the other): the attempt log first, then the rows. A crash between them leaves the rows
   * claimed: once the lease runs out they are sent again, and the log shows both attempts.
   */
  private async flushFinishes(): Promise<void> {
    const batch = this.finishing.splice(0, FINISH_BATCH);
    if (this.finishing.length > 0) setTimeout(() => void this.flushFinishes(), FINISH_WINDOW_MS);
    try {
      await this.uow.retrying((manager) => bulkInsert(manager, DeliveryAttempt, batch.map(attemptRow)));
      await this.uow.retrying((manager) => markFinished(manager, batch));
      for (const item of batch) item.resolve();
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }

  eventsByRowIds(ids: string[]): Promise<OutboxEvent[]> {
    return ids.length ? this.events.find({ where: { id: In(ids) } }) : Promise.resolve([]);
  }

  eventsOf(transactionId: string): Promise<OutboxEvent[]> {
    return this.events.find({ where: { transactionId }, order: { sequence: 'ASC' } });
  }

  findEvent(transactionId: string, eventId: string): Promise<OutboxEvent | null> {
    return this.events.findOne({ where: { transactionId, eventId } });
  }

  deliveriesOfEvents(eventRowIds: string[]): Promise<Delivery[]> {
    return eventRowIds.length
      ? this.deliveries.find({ where: { eventRowId: In(eventRowIds) }, order: { id: 'ASC' } })
      : Promise.resolve([]);
  }

  attemptsOf(deliveryIds: string[]): Promise<DeliveryAttempt[]> {
    return deliveryIds.length
      ? this.attempts.find({ where: { deliveryId: In(deliveryIds) }, order: { id: 'ASC' } })
      : Promise.resolve([]);
  }

  /** A fresh pending webhook delivery of an event; returns its id. */
  async addWebhookDelivery(event: OutboxEvent, url: string, now: Date): Promise<string> {
    const row = newDeliveryRow({ eventRowId: event.id, channel: 'webhook', target: url, now });
    const inserted = await this.uow.retrying((m) =>
      m
        .withRepository(this.deliveries)
        .createQueryBuilder()
        .insert()
        .into(Delivery)
        .values(row)
        .updateEntity(false)
        .execute(),
    );
    return insertedId(inserted);
  }
}
