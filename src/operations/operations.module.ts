import { Module } from '@nestjs/common';
import { CurrenciesModule } from '../currencies/currencies.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { PaymentsModule } from '../payments/payments.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { OperationsController } from './operations.controller';
import { OperationsService } from './operations.service';

/** The operations API (contract §10). */
@Module({
  imports: [IdempotencyModule, TransactionsModule, PaymentsModule, CurrenciesModule, GatewaysModule],
  controllers: [OperationsController],
  providers: [OperationsService],
})
export class OperationsModule {}
