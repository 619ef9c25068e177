import 'reflect-metadata';
import type { DynamicModule, Type } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { Test, type TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import type { ProviderOverride } from '../../src/app.factory';
import { AuthModule } from '../../src/auth/auth.module';
import { RequestBodiesModule } from '../../src/common/http/request-bodies.module';
import { createLogger, PinoNestLogger } from '../../src/common/logging/logger';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { MetricsModule } from '../../src/metrics/metrics.module';
import { DriversModule } from '../../src/payments/drivers/drivers.module';
import { REGISTERED_DRIVERS } from '../../src/payments/drivers/registered-drivers';
import { tempDir } from './temp-dir';
import { createTestDatabase, type TestDatabase } from './test-database';

/**
 * Services built on a real database without HTTP: the app's own modules over the app's data layer
 * (DatabaseModule: connection + migrations) on a fresh database of the current leg (TEST_DB=sqlite
 * or mysql, one database per context). No HTTP server, no controllers called.
 */
export interface ServiceContext {
  config: AppConfig;
  db: TestDatabase;
  /** The module graph, started (lifecycle hooks ran): `get` any provider, exported or not. */
  module: TestingModule;
  dataSource: DataSource;
  get<T>(type: Type<T> | string | symbol): T;
  /** Stops the services (shutdown hooks) and drops the database (unless it was shared in). */
  close(): Promise<void>;
}

export interface ServiceContextOptions {
  /** The feature modules under test (their imports come along). */
  imports: (Type | DynamicModule)[];
  /** Environment for loadConfig on top of the quiet defaults below. */
  env?: Record<string, string>;
  /** Providers replaced at the edges (senders, gateway adapters). */
  overrides?: ProviderOverride[];
  /** Share another context's database (a second replica); its owner drops it. */
  db?: TestDatabase;
}

/**
 * The environment every service context starts from: the periodic jobs (expiry sweep, reconciler,
 * dispatcher poll, idempotency sweep) tick only once an hour or more, so a test drives them by
 * calling their services itself and nothing changes rows behind its back.
 */
const QUIET_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  PUBLIC_BASE_URL: 'http://checkout.test',
  EXPIRY_SWEEP_SECONDS: '86400',
  PAYMENT_RECONCILE_SECONDS: '3600',
  DISPATCH_INTERVAL_MS: '3600000',
  CARD_FINGERPRINT_KEY: 'test-card-fingerprint-key-0123456789abcdef',
};

/**
 * Builds and starts `options.imports` beside the app's global modules (config, database, metrics,
 * request bodies, scheduler, auth, the registered gateway drivers). Their controllers are built too
 * (they are part of the module), but nothing routes to them.
 */
export async function createServiceContext(options: ServiceContextOptions): Promise<ServiceContext> {
  const db = options.db ?? (await createTestDatabase());
  const dropDb = () => (options.db ? Promise.resolve() : db.drop());
  const attachmentDir = tempDir('checkout-files-');
  let module: TestingModule | undefined;
  try {
    const config = loadConfig({
      ...QUIET_ENV,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ATTACHMENT_DIR: attachmentDir.path,
      ...db.env,
      ...options.env,
    });
    const builder = Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(),
        MetricsModule,
        RequestBodiesModule,
        ScheduleModule.forRoot(),
        AuthModule,
        DriversModule.forRoot(REGISTERED_DRIVERS),
        ...options.imports,
      ],
    }).setLogger(new PinoNestLogger(createLogger(config.logLevel)));
    for (const override of options.overrides ?? []) {
      const replace = builder.overrideProvider(override.provide);
      if ('useValue' in override) replace.useValue(override.useValue);
      else if ('useClass' in override) replace.useClass(override.useClass);
      else replace.useFactory({ factory: override.useFactory, inject: override.inject as never[] });
    }
    module = await builder.compile();
    await module.init();
    const started = module;
    return {
      config,
      db,
      module: started,
      dataSource: started.get(DataSource),
      get: <T>(type: Type<T> | string | symbol): T => started.get<T>(type, { strict: false }),
      async close() {
        await started.close();
        await dropDb();
        attachmentDir.remove();
      },
    };
  } catch (error) {
    await module?.close().catch(() => undefined);
    await dropDb();
    attachmentDir.remove();
    throw error;
  }
}
