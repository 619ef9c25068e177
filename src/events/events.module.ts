import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { CurrenciesModule } from '../currencies/currencies.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryAttempt } from './delivery-attempt.entity';
import { Delivery } from './delivery.entity';
import { OutboxEvent } from './event.entity';
import { DispatcherService } from './dispatcher.service';
import { EventsAdminController } from './events-admin.controller';
import { EventsAdminService } from './events-admin.service';
import { EmailSender } from './notifications/email-sender';
import { HttpSmsProvider } from './notifications/sms-provider';
import { OutboxService } from './outbox.service';
import { WebhookSender } from './webhooks/webhook-sender';

/** Events: outbox, dispatcher, webhook / e-mail / SMS senders (SPEC §6). */
@Module({
  imports: [
    TypeOrmModule.forFeature([OutboxEvent, Delivery, DeliveryAttempt]),
    AdminConfigModule,
    CurrenciesModule,
    GatewaysModule,
  ],
  controllers: [EventsAdminController],
  providers: [
    EventsAdminService,
    OutboxService,
    DeliveriesRepository,
    DispatcherService,
    WebhookSender,
    EmailSender,
    HttpSmsProvider,
  ],
  exports: [OutboxService, DispatcherService],
})
export class EventsModule {}
