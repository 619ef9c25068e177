import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { AppConfig } from './config/app-config';
import { createLogger, PinoNestLogger } from './common/logging/logger';

export interface CreatedApp {
  app: NestExpressApplication;
  logger: Logger;
}

/** Builds the configured (not yet listening) application: the same path for main.ts and tests. */
export async function createApp(config: AppConfig): Promise<CreatedApp> {
  const logger = createLogger(config.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  configureApp(app, logger);
  return { app, logger };
}
