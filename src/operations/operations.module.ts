import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CurrenciesModule } from '../currencies/currencies.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { PaymentsModule } from '../payments/payments.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { OperationResult } from './operation-result.entity';
import { OperationResultsRepository } from './operation-results.repository';
import { OperationsController } from './operations.controller';
import { OperationsService } from './operations.service';

/** The operations API (SPEC §10). */
@Module({
  imports: [
    TypeOrmModule.forFeature([OperationResult]),
    TransactionsModule,
    PaymentsModule,
    CurrenciesModule,
    GatewaysModule,
  ],
  controllers: [OperationsController],
  providers: [OperationResultsRepository, OperationsService],
})
export class OperationsModule {}
