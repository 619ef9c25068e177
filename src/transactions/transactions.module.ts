import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { AttachmentsModule } from '../attachments/attachments.module';
import { CurrenciesModule } from '../currencies/currencies.module';
import { EventsModule } from '../events/events.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { RoutingModule } from '../routing/routing.module';
import { ShortLinksModule } from '../short-links/short-links.module';
import { TransactionEvents } from './events/transaction-events';
import { TransactionAttachments } from './transaction-attachment';
import { Transaction } from './transaction.entity';
import { TransactionSearchService } from './transaction-search.service';
import { TransactionValidator } from './transaction-validator';
import { TransactionsController } from './transactions.controller';
import { TransactionsRepository } from './transactions.repository';
import { TransactionsService } from './transactions.service';
import { TransitionService } from './transition.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([Transaction]),
    AdminConfigModule,
    CurrenciesModule,
    GatewaysModule,
    EventsModule,
    AttachmentsModule,
    ShortLinksModule,
    IdempotencyModule,
    RoutingModule,
  ],
  controllers: [TransactionsController],
  providers: [
    TransactionsRepository,
    TransactionValidator,
    TransactionsService,
    TransactionAttachments,
    TransitionService,
    TransactionEvents,
    TransactionSearchService,
  ],
  exports: [TransactionsService, TransitionService, TransactionSearchService],
})
export class TransactionsModule {}
