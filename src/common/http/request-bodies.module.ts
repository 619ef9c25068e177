import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { BodyGate } from './body-gate';
import { RequestBodies } from './request-bodies';

/**
 * Request bodies, read after authentication (contract §3) and through one {@link BodyGate} per process
 * (contract §17), shared by the JSON/form reader and the multipart upload interceptor. Which routes read
 * a body: those declared with the route decorators of body-routes.ts (every POST, PUT, PATCH, DELETE).
 */
@Global()
@Module({
  providers: [
    {
      provide: BodyGate,
      useFactory: (config: AppConfig) => new BodyGate(config.bodyBytesInFlight, config.bodyWaitMs),
      inject: [AppConfig],
    },
    RequestBodies,
  ],
  exports: [BodyGate, RequestBodies],
})
export class RequestBodiesModule {}
