import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, In, Repository } from 'typeorm';
import { dateParam, insertedId, isLockConflict } from '../database/db-values';
import { UnitOfWork } from '../database/unit-of-work';
import { DeliveryAttempt } from './delivery-attempt.entity';
import { Delivery, DeliveryStatus, newDeliveryRow } from './delivery.entity';
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

/** Outbox rows: claims, attempt results, listings. */
@Injectable()
export class DeliveriesRepository {
  constructor(
    @InjectRepository(Delivery) private readonly deliveries: Repository<Delivery>,
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
    @InjectRepository(DeliveryAttempt) private readonly attempts: Repository<DeliveryAttempt>,
    private readonly uow: UnitOfWork,
  ) {}

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
   * — if this worker still holds it; the attempt is logged either way.
   */
  async finish(delivery: Delivery, result: AttemptResult): Promise<void> {
    const { outcome } = result;
    // The delivery row first, then the attempt (whose foreign key share-locks it): taking the
    // row's exclusive lock before the shared one avoids a lock upgrade that deadlocks against
    // another worker's claim UPDATE on MySQL.
    await this.uow.run(async (manager) => {
      await manager
        .createQueryBuilder()
        .update(Delivery)
        .set({
          status: result.status,
          attempts: () => 'attempts + 1',
          nextAttemptAt: result.nextAttemptAt,
          claimedBy: null,
          claimedUntil: null,
          lastAttemptAt: result.attemptedAt,
          lastStatusCode: outcome.statusCode,
          lastError: outcome.error?.slice(0, 500) ?? null,
        })
        // Only while we still hold the claim: a worker that stalled past its lease must not
        // release (or overwrite the outcome of) the claim another worker has taken since.
        .where({ id: delivery.id, claimedBy: delivery.claimedBy })
        .execute();
      await manager
        .createQueryBuilder()
        .insert()
        .into(DeliveryAttempt)
        .values({
          deliveryId: delivery.id,
          attemptedAt: result.attemptedAt,
          statusCode: outcome.statusCode,
          durationMs: result.durationMs,
          error: outcome.error?.slice(0, 500) ?? null,
          responseBody: outcome.responseBody,
        })
        .updateEntity(false)
        .execute();
    });
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
    const inserted = await this.deliveries
      .createQueryBuilder()
      .insert()
      .into(Delivery)
      .values(
        newDeliveryRow({
          eventRowId: event.id,
          channel: 'webhook',
          target: url,
          now,
        }),
      )
      .updateEntity(false)
      .execute();
    return insertedId(inserted);
  }
}
