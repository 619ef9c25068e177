import { Module } from '@nestjs/common';
import { OutboxService } from './outbox.service';

/** Events: outbox, dispatcher, webhook / e-mail / SMS senders (SPEC §6). */
@Module({
  providers: [OutboxService],
  exports: [OutboxService],
})
export class EventsModule {}
