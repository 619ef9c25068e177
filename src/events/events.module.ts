import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryAttempt } from './delivery-attempt.entity';
import { Delivery } from './delivery.entity';
import { OutboxEvent } from './event.entity';
import { DELIVERY_DISPATCH } from './delivery-dispatch';
import { DispatcherService } from './dispatcher.service';
import { EventsAdminService } from './events-admin.service';
import { EmailSender } from './notifications/email-sender';
import { HttpSmsProvider } from './notifications/sms-provider';
import { EventPayloads } from './event-payloads';
import { OutboxMetrics } from './outbox-metrics';
import { OutboxService } from './outbox.service';
import { WebhookSender } from './webhooks/webhook-sender';

/**
 * Events (contract §6): the outbox, the dispatcher, the webhook / e-mail / SMS senders and the admin
 * view of deliveries. A lower layer: it records the envelopes its producers (transactions) build
 * and never reads or writes their tables. The outbox and redeliveries reach the dispatcher through
 * the `DELIVERY_DISPATCH` token, provided here by the `DispatcherService`.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEvent, Delivery, DeliveryAttempt]), AdminConfigModule],
  providers: [
    EventsAdminService,
    OutboxService,
    EventPayloads,
    DeliveriesRepository,
    DispatcherService,
    { provide: DELIVERY_DISPATCH, useExisting: DispatcherService },
    OutboxMetrics,
    WebhookSender,
    EmailSender,
    HttpSmsProvider,
  ],
  exports: [OutboxService, EventsAdminService, EventPayloads],
})
export class EventsModule {}
