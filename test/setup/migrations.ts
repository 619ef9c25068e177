import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';

const MIGRATIONS = join(__dirname, '..', '..', 'src', 'database', 'migrations');

/**
 * A data source on a test database with the migrations before `before` (a timestamp), or all of
 * them: to put rows in the schema as it was, then run the migration under test.
 */
export function migratedUpTo(env: Record<string, string>, before?: string): DataSource {
  const options = buildDataSourceOptions(loadConfig(env).database);
  const files = readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.js') && (!before || f < before))
    .map((f) => join(MIGRATIONS, f));
  return new DataSource({ ...options, migrations: files });
}
