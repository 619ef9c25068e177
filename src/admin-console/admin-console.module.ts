import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CurrenciesModule } from '../currencies/currencies.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { AdminModule } from '../admin/admin.module';
import { EventsModule } from '../events/events.module';
import { PaymentsModule } from '../payments/payments.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { ApiKeysPageController } from './api-keys-page.controller';
import { ConfigPageController } from './config-page.controller';
import { ConsoleResponder } from './console-responder';
import { CurrenciesPageController } from './currencies-page.controller';
import { GatewaysPageController } from './gateways-page.controller';
import { UsersPageController } from './users-page.controller';
import { SignInController } from './sign-in.controller';
import { TransactionsPageController } from './transactions-page.controller';
import { AdminSession } from './admin-session.entity';
import { AdminSessionsService } from './admin-sessions.service';

/** The admin console (contract §19): pages over the admin API's services. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AdminSession]),
    AdminConfigModule,
    AdminModule,
    CurrenciesModule,
    GatewaysModule,
    EventsModule,
    PaymentsModule,
    TransactionsModule,
  ],
  controllers: [
    SignInController,
    ConfigPageController,
    ApiKeysPageController,
    TransactionsPageController,
    GatewaysPageController,
    CurrenciesPageController,
    UsersPageController,
  ],
  providers: [AdminSessionsService, ConsoleResponder],
})
export class AdminConsoleModule {}
