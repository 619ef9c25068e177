import { Module } from '@nestjs/common';
import { AdminConfigModule } from '../admin-config/admin-config.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { ExpiryJob } from './expiry.job';
import { ExpiryService } from './expiry.service';

/** Auto-expiry of overdue transactions (contract §7). */
@Module({
  imports: [TransactionsModule, AdminConfigModule],
  providers: [ExpiryService, ExpiryJob],
  exports: [ExpiryService],
})
export class ExpiryModule {}
