import { Module } from '@nestjs/common';
import { MetricsAccessGuard } from './metrics-access.guard';
import { MetricsController } from './metrics.controller';

/** `GET /metrics` (contract §18): the registry of metrics/ for admins or the `METRICS_TOKEN`. */
@Module({
  controllers: [MetricsController],
  providers: [MetricsAccessGuard],
})
export class MetricsEndpointModule {}
