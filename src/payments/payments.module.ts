import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CardsModule } from '../cards/cards.module';
import { CurrenciesModule } from '../currencies/currencies.module';
import { EventsModule } from '../events/events.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { SandboxOperation } from './drivers/sandbox/sandbox-operation.entity';
import { SandboxToken } from './drivers/sandbox/sandbox-token.entity';
import { AutoDebitController } from './auto-debit.controller';
import { AutoDebitService } from './auto-debit.service';
import { InquiryController } from './inquiry.controller';
import { CashPaymentController } from './cash-payment.controller';
import { CashPaymentService } from './cash-payment.service';
import { InquiryService } from './inquiry.service';
import { TransactionsModule } from '../transactions/transactions.module';
import { GATEWAY_ADAPTERS, type GatewayAdapter } from './adapters/gateway-adapter';
import { GatewayAdapters } from './adapters/gateway-adapters';
import { SandboxCharge } from './drivers/sandbox/sandbox-charge.entity';
import { SandboxGatewayAdapter } from './drivers/sandbox/sandbox-driver';
import { CashGatewayAdapter } from './drivers/cash/cash-driver';
import { AttemptSettlement } from './attempt-settlement';
import { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository } from './payment-attempts.repository';
import { PaymentsService } from './payments.service';
import { ReconcilerJob } from './reconciler.job';
import { TestHelpersController } from './test-helpers.controller';
import { DRIVER_SETTINGS, StoredDriverSettings } from './driver-settings';
import { MpgsDriver } from './drivers/mpgs/mpgs-driver';
import { KnetDriver } from './drivers/knet/knet-driver';
import { StripeDriver } from './drivers/stripe/stripe-driver';
import { GatewayNotifyController } from './gateway-notify.controller';
import { RedirectPayments } from './redirect-payments.service';
import { ProviderQuestions } from './provider-questions';
import { ReconciliationController } from './reconciliation.controller';
import { ReconciliationService } from './reconciliation.service';
import { OperationSettlement } from './operation-settlement';
import { ProviderOperation } from './provider-operation.entity';
import { ProviderOperationsRepository } from './provider-operations.repository';

/**
 * Payment attempts and the gateway drivers (contract §9, §20). A driver is one more provider added
 * to the GATEWAY_ADAPTERS list below; its settings come from DRIVER_SETTINGS.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      PaymentAttempt,
      SandboxCharge,
      SandboxToken,
      SandboxOperation,
      ProviderOperation,
    ]),
    TransactionsModule,
    GatewaysModule,
    CardsModule,
    CurrenciesModule,
    EventsModule,
    IdempotencyModule,
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
    SandboxGatewayAdapter,
    CashGatewayAdapter,
    StripeDriver,
    MpgsDriver,
    KnetDriver,
    {
      // The first driver that serves a gateway is its driver: by `pg` first, the sandbox last.
      provide: GATEWAY_ADAPTERS,
      useFactory: (...adapters: GatewayAdapter[]): GatewayAdapter[] => adapters,
      inject: [StripeDriver, MpgsDriver, KnetDriver, CashGatewayAdapter, SandboxGatewayAdapter],
    },
    // Each gateway's driver settings (src/gateways/ stores them; tests may override the token).
    { provide: DRIVER_SETTINGS, useClass: StoredDriverSettings },
    RedirectPayments,
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
