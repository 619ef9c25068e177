import { Module } from '@nestjs/common';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { CurrenciesModule } from '../currencies/currencies.module';
import { EventsModule } from '../events/events.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { AdminConfigController } from './admin-config.controller';
import { AdminService } from './admin.service';
import { ApiKeysAdminController } from './api-keys.controller';
import { CurrenciesAdminController } from './currencies.controller';
import { GatewayDriversAdminController } from './gateway-drivers.controller';
import { GatewaysAdminController } from './gateways.controller';
import { TransactionEventsAdminController } from './transaction-events.controller';
import { TransactionsAdminController } from './transactions.controller';
import { UsersAdminController } from './users.controller';

/** The admin API (contract §8): thin controllers over the resources' own services. */
@Module({
  imports: [AdminConfigModule, CurrenciesModule, EventsModule, GatewaysModule, TransactionsModule],
  controllers: [
    AdminConfigController,
    CurrenciesAdminController,
    GatewaysAdminController,
    GatewayDriversAdminController,
    ApiKeysAdminController,
    UsersAdminController,
    TransactionsAdminController,
    TransactionEventsAdminController,
  ],
  providers: [AdminService],
  exports: [AdminService],
})
export class AdminModule {}
