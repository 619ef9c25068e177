import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CardsModule } from '../cards/cards.module';
import { CurrenciesModule } from '../currencies/currencies.module';
import { EventsModule } from '../events/events.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { AutoDebitController } from './auto-debit.controller';
import { AutoDebitService } from './auto-debit.service';
import { InquiryController } from './inquiry.controller';
import { CashPaymentController } from './cash-payment.controller';
import { CashPaymentService } from './cash-payment.service';
import { InquiryService } from './inquiry.service';
import { RoutingModule } from '../routing/routing.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { GatewayRouting } from './gateway-routing';
import { GatewayAdapters } from './adapters/gateway-adapters';
import { AttemptSettlement } from './attempt-settlement';
import { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository } from './payment-attempts.repository';
import { PaymentsService } from './payments.service';
import { ReconcilerJob } from './reconciler.job';
import { TestHelpersController } from './test-helpers.controller';
import { DRIVER_SETTINGS, StoredDriverSettings } from './driver-settings';
import { GatewayNotifyController } from './gateway-notify.controller';
import { RedirectPayments } from './redirect-payments.service';
import { ProviderQuestions } from './provider-questions';
import { ReconciliationController } from './reconciliation.controller';
import { ReconciliationService } from './reconciliation.service';
import { OperationSettlement } from './operation-settlement';
import { ProviderOperation } from './provider-operation.entity';
import { ProviderOperationsRepository } from './provider-operations.repository';

/**
 * Payment attempts through the gateway drivers (contract §9, §20). The drivers themselves, and the
 * GATEWAY_ADAPTERS list `GatewayAdapters` picks from, come from `DriversModule` (one line per driver
 * in drivers/registered-drivers.ts); their settings come from DRIVER_SETTINGS.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([PaymentAttempt, ProviderOperation]),
    TransactionsModule,
    GatewaysModule,
    CardsModule,
    CurrenciesModule,
    EventsModule,
    IdempotencyModule,
    RoutingModule,
  ],
  controllers: [
    TestHelpersController,
    AutoDebitController,
    InquiryController,
    CashPaymentController,
    GatewayNotifyController,
    ReconciliationController,
  ],
  providers: [
    // Each gateway's driver settings (src/gateways/ stores them; tests may override the token).
    { provide: DRIVER_SETTINGS, useClass: StoredDriverSettings },
    RedirectPayments,
    GatewayRouting,
    ProviderQuestions,
    ReconciliationService,
    GatewayAdapters,
    PaymentAttemptsRepository,
    AttemptSettlement,
    ProviderOperationsRepository,
    OperationSettlement,
    PaymentsService,
    AutoDebitService,
    InquiryService,
    CashPaymentService,
    ReconcilerJob,
  ],
  exports: [PaymentsService, AttemptSettlement, OperationSettlement, GatewayAdapters, RedirectPayments],
})
export class PaymentsModule {}
