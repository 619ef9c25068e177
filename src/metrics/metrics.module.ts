import { Global, Module } from '@nestjs/common';
import { Metrics } from './metrics';

/** The registry every module records into (contract §18); `GET /metrics` serves it (metrics-endpoint/). */
@Global()
@Module({
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
