import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { BodyGate, LARGE_BODIES_AT_ONCE, LargeBodyGate } from './body-gate';
import { RequestBodies } from './request-bodies';

/**
 * Request bodies, read after authentication (contract §3) and through one {@link BodyGate} per process
 * (contract §17), shared by the JSON/form reader and the multipart upload interceptor; large JSON and form
 * bodies through one {@link LargeBodyGate} first. Which routes read a body: those declared with the
 * route decorators of body-routes.ts (every POST, PUT, PATCH, DELETE).
 */
@Global()
@Module({
  providers: [
    {
      provide: BodyGate,
      useFactory: (config: AppConfig) => new BodyGate(config.bodyBytesInFlight, config.bodyWaitMs),
      inject: [AppConfig],
    },
    {
      provide: LargeBodyGate,
      useFactory: (config: AppConfig) => new LargeBodyGate(LARGE_BODIES_AT_ONCE, config.bodyWaitMs),
      inject: [AppConfig],
    },
    RequestBodies,
  ],
  exports: [BodyGate, LargeBodyGate, RequestBodies],
})
export class RequestBodiesModule {}
