import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestApplicationOptions } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { AppConfig } from './config/app-config';
import { createLogger, PinoNestLogger } from './common/logging/logger';
import type { RegisteredDriver } from './payments/drivers/drivers.module';

export interface CreatedApp {
  app: NestExpressApplication;
  logger: Logger;
}

/** A provider replaced at an edge (a gateway adapter, a sender, a seam a test observes). */
export type ProviderOverride =
  | { provide: unknown; useValue: unknown }
  | { provide: unknown; useClass: Type }
  | { provide: unknown; useFactory: (...args: never[]) => unknown; inject?: unknown[] };

export interface CreateAppOptions {
  /** Tests only: providers to replace (built through @nestjs/testing, a dev dependency). */
  overrides?: ProviderOverride[];
  /**
   * Gateway drivers registered after the built-in ones (src/payments/drivers/registered-drivers.ts):
   * each is in the drivers endpoint, settings validation, the console and the pay path, as if listed
   * there (test/payments/one-place-driver/ adds one so).
   */
  drivers?: readonly RegisteredDriver[];
}

/** Builds the configured (not yet listening) application: the same path for main.ts and tests. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<CreatedApp> {
  const logger = createLogger(config.logLevel);
  const root = AppModule.forRoot(config, options.drivers);
  const appOptions: NestApplicationOptions = {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  };
  const app = options.overrides?.length
    ? await withOverrides(root, options.overrides, appOptions)
    : await NestFactory.create<NestExpressApplication>(root, appOptions);
  configureApp(app, logger);
  return { app, logger };
}

async function withOverrides(
  root: DynamicModule,
  overrides: ProviderOverride[],
  appOptions: NestApplicationOptions,
): Promise<NestExpressApplication> {
  const { Test } = await import('@nestjs/testing');
  const builder = Test.createTestingModule({ imports: [root] });
  for (const override of overrides) {
    const replace = builder.overrideProvider(override.provide);
    if ('useValue' in override) replace.useValue(override.useValue);
    else if ('useClass' in override) replace.useClass(override.useClass);
    else replace.useFactory({ factory: override.useFactory, inject: override.inject as never[] });
  }
  const moduleRef = await builder.compile();
  return moduleRef.createNestApplication<NestExpressApplication>(appOptions);
}
