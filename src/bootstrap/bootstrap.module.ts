import { Module } from '@nestjs/common';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { CurrenciesModule } from '../currencies/currencies.module';
import { GatewaysModule } from '../gateways/gateways.module';
import { BootstrapService } from './bootstrap.service';

@Module({
  imports: [CurrenciesModule, GatewaysModule, AdminConfigModule],
  providers: [BootstrapService],
})
export class BootstrapModule {}
