import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { runMigrations } from './migration-runner';
import { serializeTransactions } from './serial-transactions';

/** The shared TypeORM data layer: connects, applies migrations, then the app starts. */
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => buildDataSourceOptions(config.database),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            await runMigrations(dataSource);
            serializeTransactions(dataSource);
            return dataSource;
          },
        }),
      ],
    };
  }
}
