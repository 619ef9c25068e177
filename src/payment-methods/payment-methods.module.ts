import { Module } from '@nestjs/common';
import { CardsModule } from '../cards/cards.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { PaymentMethodsController } from './payment-methods.controller';
import { PaymentMethodsService } from './payment-methods.service';

/** `POST /b/pbl/v2/payment-methods/` (contract §16): gateways and saved cards a merchant can offer. */
@Module({
  imports: [GatewaysModule, CardsModule],
  controllers: [PaymentMethodsController],
  providers: [PaymentMethodsService],
})
export class PaymentMethodsModule {}
