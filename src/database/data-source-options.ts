import { Logger } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config';
import { FailoverDriver } from './failover-pool';

/**
 * The one place that builds TypeORM options, for the app and for the TypeORM CLI (ormconfig.ts):
 * MySQL/MariaDB through mysql2 when DATABASE_URL is set (one server or a Galera node list, through
 * the {@link FailoverDriver}), else an embedded SQLite file through better-sqlite3. Migrations are
 * per dialect; `synchronize` is never on.
 */
export function buildDataSourceOptions(database: DatabaseConfig): DataSourceOptions {
  const entities = [join(__dirname, '..', '**', '*.entity.js')];
  if (database.type === 'mysql') {
    const [first] = database.endpoints;
    return {
      type: 'mysql',
      driver: new FailoverDriver({
        endpoints: database.endpoints,
        acquireTimeoutMs: database.pool.acquireTimeoutMs,
        queryTimeoutMs: database.pool.queryTimeoutMs,
        wsrepSyncWait: database.wsrepSyncWait,
        log: new Logger('Database'),
      }),
      host: first.host,
      port: first.port,
      username: database.user,
      password: database.password,
      database: database.database,
      timezone: 'Z',
      charset: 'utf8mb4_bin',
      supportBigNumbers: true,
      bigNumberStrings: true,
      poolSize: database.pool.size,
      entities,
      migrations: [join(__dirname, 'migrations', '*.js')],
      migrationsTableName: 'migrations',
      synchronize: false,
      logging: false,
    };
  }
  const file = resolve(database.path);
  mkdirSync(dirname(file), { recursive: true });
  return {
    type: 'better-sqlite3',
    database: file,
    enableWAL: true,
    timeout: 10_000,
    prepareDatabase: (db: { pragma: (sql: string) => unknown }) => {
      db.pragma('busy_timeout = 10000');
      db.pragma('synchronous = NORMAL');
    },
    entities,
    migrations: [join(__dirname, 'migrations', '*.js')],
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  };
}
