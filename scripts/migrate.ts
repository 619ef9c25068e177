import 'reflect-metadata';
import { ConfigError, loadConfig } from '../src/config/app-config';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { DatabaseRefusedError } from '../src/database/db-errors';
import { openDataSource } from '../src/database/open-data-source';

/**
 * `npm run migration:run`: applies pending migrations ahead of a deployment, under the same
 * cluster-wide lock the replicas take at start-up (contract §17), so it is safe while they run.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const dataSource = await openDataSource(buildDataSourceOptions(config.database));
  const applied = await dataSource.query<{ name: string }[]>('SELECT name FROM migrations ORDER BY id');
  process.stdout.write(`Migrations applied: ${applied.length} (latest: ${applied.at(-1)?.name ?? 'none'})\n`);
  await dataSource.destroy();
}

main().catch((error: unknown) => {
  // A configuration error, or a database that refuses DATABASE_URL: the message says it all.
  process.stderr.write(
    `${error instanceof ConfigError || error instanceof DatabaseRefusedError ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
