import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { runServiceToExit } from '../ops/service-process';
import { ADMIN, startApp, TestApp } from '../setup/test-app';
import { createTestDatabase, TestDatabase, testDbKind } from '../setup/test-database';

/** Runs SQL on the test database from outside the service (its own connection, no migrations). */
async function sql(db: TestDatabase, query: string): Promise<unknown[]> {
  const outside = await new DataSource(buildDataSourceOptions(loadConfig(db.env).database)).initialize();
  try {
    const rows: unknown = await outside.query(query);
    return Array.isArray(rows) ? (rows as unknown[]) : [];
  } finally {
    await outside.destroy();
  }
}

describe('start-up (contract §17)', () => {
  it('a start whose migrations fail exits non-zero, leaves the migration lock free, and the next start works', async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      // A table in the way of the first migration (a half-restored backup, say).
      await sql(db, 'CREATE TABLE currencies (unrelated int)');
      const failed = await runServiceToExit(
        { ...db.env, ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn' },
        30_000,
      );
      assert.equal(failed.code, 1, failed.stdout);
      assert.match(failed.stderr, /Checkout failed to start/);
      assert.deepEqual(await sql(db, 'SELECT * FROM schema_lock'), []);

      await sql(db, 'DROP TABLE currencies');
      const t = await startApp({ db });
      await t.http().get('/health/ready').expect(200);
      await t.app.close();
    } finally {
      await db.drop();
    }
  });

  // Several replicas share MySQL; the embedded SQLite database serves one process.
  if (testDbKind() === 'mysql') {
    it('two replicas starting at once on a fresh database both start; each migration runs once', async () => {
      for (let round = 0; round < 2; round++) {
        const db = await createTestDatabase({ empty: true });
        const apps: TestApp[] = [];
        try {
          const started = await Promise.allSettled([startApp({ db }), startApp({ db })]);
          for (const result of started) if (result.status === 'fulfilled') apps.push(result.value);
          assert.deepEqual(
            started.filter((r) => r.status === 'rejected').map((r) => String(r.reason)),
            [],
            'both replicas started',
          );
          for (const t of apps) await t.http().get('/health/ready').expect(200);
          const ds = apps[0].app.get(DataSource);
          const names = (await ds.query<{ name: string }[]>('SELECT name FROM migrations ORDER BY id')).map(
            (r) => r.name,
          );
          assert.equal(names.length, ds.migrations.length);
          assert.equal(new Set(names).size, names.length, 'no migration recorded twice');
          assert.deepEqual(await ds.query('SELECT * FROM schema_lock'), []);
        } finally {
          for (const t of apps) await t.app.close();
          await db.drop();
        }
      }
    });
  }
});
