import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { bulkInsert } from '../database/bulk-insert';
import { insertRow } from '../database/single-row';
import { UnitOfWork } from '../database/unit-of-work';
import { Delivery, newDeliveryRow } from './delivery.entity';
import { DELIVERY_DISPATCH, type DeliveryDispatch } from './delivery-dispatch';
import type { EventEnvelope } from './event-envelope';
import { OutboxEvent } from './event.entity';

/** Rows per multi-row INSERT in `recordMany` (well under SQLite's bound-parameter limit). */
const BULK_ROWS = 500;

/**
 * The transactional outbox (contract §6): `record` is called inside the DB transaction that changes
 * the subject's state, so the change, its event and one delivery row per planned channel and
 * target commit together — or not at all. The dispatcher (the injected {@link DeliveryDispatch})
 * sends them after the commit. What an event says and whom it goes to is the producer's business
 * (an {@link EventEnvelope}).
 */
@Injectable()
export class OutboxService {
  /** Registered with the unit of work that records unclaimed deliveries: runs once it has committed. */
  private readonly committed = (): void => this.dispatch.poke();

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(DELIVERY_DISPATCH) private readonly dispatch: DeliveryDispatch,
  ) {}

  async record(manager: EntityManager, envelope: EventEnvelope): Promise<void> {
    const eventRowId = await insertRow(manager, OutboxEvent, eventRow(envelope));
    if (envelope.deliveries.length === 0) return;
    const rows = envelope.deliveries.map((p) =>
      newDeliveryRow({ eventRowId, ...p, now: envelope.createdAt }),
    );
    const claim = this.dispatch.claim(envelope.createdAt);
    const toSend = claim ? rows.filter((row) => row.status === 'pending') : [];
    // In the planned order: a claimed row alone (its generated id is then exact: the ids of a
    // multi-row INSERT need not be consecutive), the others together.
    let others: Partial<Delivery>[] = [];
    for (const row of rows) {
      if (!toSend.includes(row)) {
        others.push(row);
        continue;
      }
      if (others.length > 0) await bulkInsert(manager, Delivery, others);
      others = [];
      Object.assign(row, { claimedBy: claim!.token, claimedUntil: claim!.until });
      row.id = await insertRow(manager, Delivery, row);
    }
    if (others.length > 0) await bulkInsert(manager, Delivery, others);
    if (toSend.length > 0) {
      const event = Object.assign(new OutboxEvent(), { id: eventRowId, ...eventRow(envelope) });
      this.uow.afterCommit(manager, () => this.dispatch.take({ event, deliveries: toSend as Delivery[] }));
    }
    if (rows.some((row) => row.status === 'pending' && !toSend.includes(row))) {
      this.uow.afterCommit(manager, this.committed);
    }
  }

  /**
   * `record` for many envelopes at once (the expiry job's batches): the same rows, written
   * set-based with multi-row INSERTs. Call it inside the DB transaction that changed the subjects.
   */
  async recordMany(manager: EntityManager, envelopes: readonly EventEnvelope[]): Promise<void> {
    for (let start = 0; start < envelopes.length; start += BULK_ROWS) {
      const chunk = envelopes.slice(start, start + BULK_ROWS);
      await bulkInsert(manager, OutboxEvent, chunk.map(eventRow));
      const planned = chunk.flatMap((envelope) =>
        envelope.deliveries.map((p) => ({ p, eventId: envelope.eventId, now: envelope.createdAt })),
      );
      if (planned.length === 0) continue;
      // The generated ids of a multi-row INSERT are not reliably consecutive: read them back.
      const ids = await manager
        .getRepository(OutboxEvent)
        .createQueryBuilder('e')
        .select(['e.id AS id', 'e.event_id AS event_id'])
        .where('e.event_id IN (:...eventIds)', { eventIds: [...new Set(planned.map((x) => x.eventId))] })
        .getRawMany<{ id: string | number; event_id: string }>();
      const rowIdOf = new Map(ids.map((r) => [r.event_id, String(r.id)]));
      for (let d = 0; d < planned.length; d += BULK_ROWS) {
        await bulkInsert(
          manager,
          Delivery,
          planned
            .slice(d, d + BULK_ROWS)
            .map(({ p, eventId, now }) => newDeliveryRow({ eventRowId: rowIdOf.get(eventId)!, ...p, now })),
        );
      }
      this.uow.afterCommit(manager, this.committed);
    }
  }
}

/** The event as recorded: its feed position is given after the commit (the column's default, NULL). */
function eventRow(envelope: EventEnvelope): Omit<OutboxEvent, 'id' | 'feedPosition'> {
  return {
    eventId: envelope.eventId,
    transactionId: envelope.transactionId,
    sessionId: envelope.sessionId,
    sequence: envelope.sequence,
    event: envelope.event,
    payload: envelope.payload,
    context: envelope.context,
    createdAt: envelope.createdAt,
  };
}
