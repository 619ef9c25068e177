import { CardsModule } from '../cards/cards.module';
import { Module } from '@nestjs/common';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { PaymentsModule } from '../payments/payments.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { CheckoutPagesController } from './checkout-pages.controller';
import { CheckoutPagesService } from './checkout-pages.service';
import { CsrfGuard } from './csrf';

/** The hosted checkout page and the sandbox gateway's payment page (contract §9). */
@Module({
  imports: [PaymentsModule, TransactionsModule, AdminConfigModule, CardsModule, GatewaysModule],
  controllers: [CheckoutPagesController],
  providers: [CheckoutPagesService, CsrfGuard],
})
export class CheckoutModule {}
