import type { DataSource } from 'typeorm';

/**
 * Applies pending migrations. On MySQL several replicas may start at once, so the run is wrapped
 * in a named lock (GET_LOCK) held by one connection; the others wait and then find nothing to do.
 */
export async function runMigrations(dataSource: DataSource): Promise<void> {
  if (dataSource.options.type !== 'mysql') {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  const runner = dataSource.createQueryRunner();
  try {
    const [row] = (await runner.query(`SELECT GET_LOCK('checkout_migrations', 120) AS got`)) as {
      got: number | string;
    }[];
    if (Number(row?.got) !== 1) throw new Error('Timed out waiting for the migration lock');
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query(`SELECT RELEASE_LOCK('checkout_migrations')`);
    }
  } finally {
    await runner.release();
  }
}
