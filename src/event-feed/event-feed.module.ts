import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { OutboxEvent } from '../events/event.entity';
import { EventFeedCounter } from './event-feed-counter.entity';
import { EventFeedService } from './event-feed.service';
import { EventsFeedController } from './events-feed.controller';
import { FeedSequencer } from './feed-sequencer';

/** The merchant events feed (contract §18), read from the outbox's events. */
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEvent, EventFeedCounter]), EventsModule],
  controllers: [EventsFeedController],
  providers: [FeedSequencer, EventFeedService],
})
export class EventFeedModule {}
