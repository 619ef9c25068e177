import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { DatabaseRefusedError, isDatabaseUnavailable } from './db-errors';
import { runMigrations } from './migration-runner';

/** How long a starting replica keeps trying to reach a database that does not answer yet. */
const CONNECT_PATIENCE_MS = 30_000;
const CONNECT_RETRY_MS = 1000;

/**
 * Connects (waiting a while for a database that is still starting, as containers started together
 * do), then applies pending migrations under the cluster-wide lock. A start that fails closes its
 * connections before it throws, so the process can exit (contract §17). A server that refuses the
 * credentials or the database of `DATABASE_URL` ({@link DatabaseRefusedError}) is not waited for:
 * that fails at once, naming the URL without its password.
 */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  const logger = new Logger('Database');
  const giveUpAt = Date.now() + CONNECT_PATIENCE_MS;
  let dataSource: DataSource;
  for (;;) {
    dataSource = new DataSource(options);
    try {
      await dataSource.initialize();
      break;
    } catch (error) {
      if (error instanceof DatabaseRefusedError || !isDatabaseUnavailable(error) || Date.now() > giveUpAt) {
        throw error;
      }
      logger.warn(`No database answers yet (${(error as Error).message}); trying again`);
      await sleep(CONNECT_RETRY_MS);
    }
  }
  try {
    await runMigrations(dataSource, { log: (message) => logger.log(message) });
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw error;
  }
  return dataSource;
}
