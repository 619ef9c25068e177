import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config';

/**
 * The one place that builds TypeORM options, for the app and for the TypeORM CLI (ormconfig.ts):
 * MySQL/MariaDB through mysql2 when DATABASE_URL is set, else an embedded SQLite file through
 * better-sqlite3. Migrations are per dialect; `synchronize` is never on.
 */
export function buildDataSourceOptions(database: DatabaseConfig): DataSourceOptions {
  const entities = [join(__dirname, '..', '**', '*.entity.js')];
  if (database.type === 'mysql') {
    return {
      type: 'mysql',
      url: database.url,
      timezone: 'Z',
      charset: 'utf8mb4_bin',
      supportBigNumbers: true,
      bigNumberStrings: true,
      poolSize: 20,
      entities,
      migrations: [join(__dirname, 'migrations', 'mysql', '*.js')],
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
    migrations: [join(__dirname, 'migrations', 'sqlite', '*.js')],
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  };
}
