import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AdminModule } from './admin/admin.module';
import { AdminConsoleModule } from './admin-console/admin-console.module';
import { AdminConfigModule } from './admin-config/admin-config.module';
import { AuthModule } from './auth/auth.module';
import { CheckoutModule } from './checkout/checkout.module';
import { BootstrapModule } from './bootstrap/bootstrap.module';
import { ErrorFilter } from './common/errors/error.filter';
import { RequestBodiesModule } from './common/http/request-bodies.module';
import { createValidationPipe } from './common/validation/validation.pipe';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CurrenciesModule } from './currencies/currencies.module';
import { DatabaseModule } from './database/database.module';
import { EventFeedModule } from './event-feed/event-feed.module';
import { ExpiryModule } from './expiry/expiry.module';
import { GatewaysModule } from './gateways/gateways.module';
import { HealthModule } from './health/health.module';
import { MetricsModule } from './metrics/metrics.module';
import { MetricsEndpointModule } from './metrics-endpoint/metrics-endpoint.module';
import { OperationsModule } from './operations/operations.module';
import { PaymentMethodsModule } from './payment-methods/payment-methods.module';
import { DriversModule, type RegisteredDriver } from './payments/drivers/drivers.module';
import { registeredDrivers } from './payments/drivers/registered-drivers';
import { PaymentsModule } from './payments/payments.module';
import { TransactionsModule } from './transactions/transactions.module';

@Module({})
export class AppModule {
  /** `extraDrivers`: gateway drivers registered after the built-in ones (registered-drivers.ts). */
  static forRoot(config: AppConfig, extraDrivers: readonly RegisteredDriver[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(),
        MetricsModule,
        MetricsEndpointModule,
        RequestBodiesModule,
        ScheduleModule.forRoot(),
        AuthModule,
        CurrenciesModule,
        DriversModule.forRoot(registeredDrivers(extraDrivers)),
        GatewaysModule,
        AdminConfigModule,
        TransactionsModule,
        PaymentsModule,
        OperationsModule,
        PaymentMethodsModule,
        ExpiryModule,
        EventFeedModule,
        CheckoutModule,
        HealthModule,
        AdminModule,
        AdminConsoleModule,
        BootstrapModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
