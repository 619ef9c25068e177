import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKey } from './idempotency-key.entity';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencySweepJob } from './idempotency-sweep.job';
import { IdempotencyService } from './idempotency.service';

/** `Idempotency-Key` (contract §11): import it and put `@Idempotent()` on a handler. */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey])],
  providers: [IdempotencyKeysRepository, IdempotencyService, IdempotencySweepJob],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
