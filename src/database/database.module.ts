import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UnavailableErrors } from '../common/errors/unavailable-errors';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseHealth } from './database-health';
import { DatabaseMetrics } from './database-metrics';
import { isDatabaseUnavailable } from './db-errors';
import { openDataSource } from './open-data-source';
import { UnitOfWork } from './unit-of-work';

/**
 * The shared TypeORM data layer: connects, applies migrations, then the app starts. Provides the
 * {@link UnitOfWork} (the only way to open a DB transaction), the readiness check and which
 * errors mean the database is out of reach ({@link UnavailableErrors}, for the error filters) to
 * every module.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          // openDataSource waits for a database that is still starting; a failed start is final
          // (and not announced as "Retrying": nothing is).
          useFactory: (config: AppConfig) => ({
            ...buildDataSourceOptions(config.database),
            retryAttempts: 0,
            toRetry: () => false,
          }),
          dataSourceFactory: (options) => openDataSource(options!),
        }),
      ],
      providers: [
        UnitOfWork,
        DatabaseHealth,
        DatabaseMetrics,
        {
          provide: UnavailableErrors,
          useValue: { matches: isDatabaseUnavailable } satisfies UnavailableErrors,
        },
      ],
      exports: [UnitOfWork, DatabaseHealth, UnavailableErrors],
    };
  }
}
