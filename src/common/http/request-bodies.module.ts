import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { BodyGate } from './body-gate';
import { BodyReadingInterceptor } from './body-reading.interceptor';
import { RequestBodies } from './request-bodies';

/**
 * Request bodies, read after authentication (contract §3) and through one {@link BodyGate} per process
 * (contract §17), shared by the JSON/form reader and the multipart upload interceptor.
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
    { provide: APP_INTERCEPTOR, useClass: BodyReadingInterceptor },
  ],
  exports: [BodyGate, RequestBodies],
})
export class RequestBodiesModule {}
