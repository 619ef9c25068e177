import { Global, Module } from '@nestjs/common';
import { MetricsAccessGuard } from './metrics-access.guard';
import { MetricsController } from './metrics.controller';
import { Metrics } from './metrics';

/** `GET /metrics` and the registry every module records into (contract §18). */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, MetricsAccessGuard],
  exports: [Metrics],
})
export class MetricsModule {}
