import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { FieldErrors } from '../common/errors/domain-errors';
import { EventPayloads } from '../events/event-payloads';
import { OutboxEvent } from '../events/event.entity';
import type { EventFeedPageDto, FeedEventDto } from './dto/event-feed.dto';
import { decodeFeedCursor, encodeFeedCursor } from './feed-cursor';
import { FeedSequencer } from './feed-sequencer';

export interface FeedQuery {
  after?: string;
  limit: number;
  sessionId?: string;
}

/** The merchant events feed (contract §18): every event once, oldest first, from a stable cursor. */
@Injectable()
export class EventFeedService {
  constructor(
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
    private readonly sequencer: FeedSequencer,
    private readonly payloads: EventPayloads,
  ) {}

  async page(query: FeedQuery, invalidCursor: string): Promise<EventFeedPageDto> {
    const after = query.after === undefined ? 0n : decodeFeedCursor(query.after);
    if (after === null) throw new FieldErrors({ after: [invalidCursor] });
    // Events committed since the last read take their places first (above every position seen so far).
    await this.sequencer.placePending();
    const qb = this.events
      .createQueryBuilder('e')
      .where('e.feed_position > :after', { after: after.toString() })
      .orderBy('e.feed_position', 'ASC')
      .limit(query.limit);
    if (query.sessionId !== undefined)
      qb.andWhere('e.session_id = :sessionId', { sessionId: query.sessionId });
    const rows = await qb.getMany();
    const results = await Promise.all(rows.map((event) => this.item(event)));
    const last = rows[rows.length - 1];
    const next = last ? encodeFeedCursor(BigInt(last.feedPosition!)) : (query.after ?? encodeFeedCursor(0n));
    return { results, next };
  }

  private async item(event: OutboxEvent): Promise<FeedEventDto> {
    return {
      event_id: event.eventId,
      event: event.event,
      sequence: event.sequence,
      session_id: event.sessionId,
      created_at: event.createdAt.toISOString(),
      payload: (await this.payloads.signed(event)) as unknown as FeedEventDto['payload'],
    };
  }
}
