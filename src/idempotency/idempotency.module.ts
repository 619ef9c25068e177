import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKey } from './idempotency-key.entity';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyService } from './idempotency.service';

/** `Idempotency-Key` (SPEC §11): import it and put `@Idempotent()` on a handler. */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey])],
  providers: [IdempotencyKeysRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
