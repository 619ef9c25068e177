import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Dialect } from '../database/dialect';
import { UnitOfWork } from '../database/unit-of-work';
import { OutboxEvent } from '../events/event.entity';
import { EventFeedCounter } from './event-feed-counter.entity';

/** Events placed per unit of work. */
const BATCH = 500;
/** Batches one read places at most (a backlog after a migration is placed over several reads). */
const MAX_BATCHES = 20;

/**
 * Gives committed events their place in the feed (contract §18). Event ids cannot serve: an event
 * with a smaller id may commit after a reader has seen a larger one (two replicas, two Galera
 * nodes), and that reader would skip it for ever. Positions are handed out only to committed
 * events, under the counter row's lock (a Galera certification conflict on it is retried by the
 * unit of work), so each placement commits whole and after every earlier one: what a reader sees
 * is always every position up to some number, and anything placed later is above it.
 */
@Injectable()
export class FeedSequencer {
  constructor(
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
    private readonly uow: UnitOfWork,
  ) {}

  /** Places the events committed without a position yet; returns how many. */
  async placePending(): Promise<number> {
    if (!(await this.anyPending(this.events.manager))) return 0; // the usual case: one indexed probe
    let placed = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const batch = await this.uow.run((manager) => this.placeBatch(manager));
      placed += batch;
      if (batch < BATCH) break;
    }
    return placed;
  }

  private async anyPending(manager: EntityManager): Promise<boolean> {
    const row = await manager
      .getRepository(OutboxEvent)
      .createQueryBuilder('e')
      .select('e.id', 'id')
      .where('e.feed_position IS NULL')
      .limit(1)
      .getRawOne<{ id: string }>();
    return row !== undefined;
  }

  private async placeBatch(manager: EntityManager): Promise<number> {
    const counter = manager.getRepository(EventFeedCounter).createQueryBuilder('c').where('c.id = 1');
    // The lock makes placements queue on MySQL; the embedded database runs one unit at a time.
    if (Dialect.of(manager).isMysql) counter.setLock('pessimistic_write');
    const { lastPosition } = await counter.getOneOrFail();
    const ids = (
      await manager
        .getRepository(OutboxEvent)
        .createQueryBuilder('e')
        .select('e.id', 'id')
        .where('e.feed_position IS NULL')
        .orderBy('e.id', 'ASC')
        .limit(BATCH)
        .getRawMany<{ id: string | number }>()
    ).map((r) => BigInt(r.id));
    if (ids.length === 0) return 0;
    const first = BigInt(lastPosition) + 1n;
    // Integers this code made (ids read back, positions counted): safe in the statement's text.
    const position = `CASE id ${ids.map((id, i) => `WHEN ${id} THEN ${first + BigInt(i)}`).join(' ')} END`;
    const result = await manager
      .createQueryBuilder()
      .update(OutboxEvent)
      .set({ feedPosition: () => position })
      .where(`id IN (${ids.join(', ')})`)
      .andWhere('feed_position IS NULL')
      .execute();
    if (result.affected !== ids.length) {
      throw new Error(`Feed placement raced: ${result.affected ?? '?'} of ${ids.length} events placed`);
    }
    await manager
      .getRepository(EventFeedCounter)
      .update({ id: 1 }, { lastPosition: String(first + BigInt(ids.length) - 1n) });
    return ids.length;
  }
}
