import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { openDataSource } from '../../src/database/open-data-source';
import {
  createMysqlDatabase,
  createTestDatabase,
  PREFIX_ENV,
  prepareTemplate,
  type TestDatabase,
  testDbKind,
} from './test-database';

interface Snapshot {
  /** Each table's definition as the database itself states it. */
  tables: Record<string, string>;
  /** Each table's rows, in key order. */
  rows: Record<string, unknown[]>;
}

/** The definition of every table (and, on SQLite, index) as the database itself states it. */
async function definitions(ds: DataSource): Promise<Record<string, string>> {
  const tables: Record<string, string> = {};
  if (testDbKind() === 'sqlite') {
    const found = await ds.query<{ name: string; sql: string }[]>(
      `SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name`,
    );
    for (const { name, sql } of found) tables[name] = sql;
  } else {
    const found = await ds.query<{ name: string }[]>(
      `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1`,
    );
    for (const { name } of found) {
      const [shown] = await ds.query<{ 'Create Table': string }[]>(`SHOW CREATE TABLE \`${name}\``);
      tables[name] = shown['Create Table'];
    }
  }
  return tables;
}

/** Everything a test could see of a database's schema and rows, read through the app's data layer. */
async function snapshot(db: TestDatabase): Promise<Snapshot> {
  const ds = await openDataSource(buildDataSourceOptions(loadConfig(db.env).database));
  try {
    const tables = await definitions(ds);
    const rows: Record<string, unknown[]> = {};
    for (const meta of [...ds.entityMetadatas.map((m) => m.tableName), 'migrations', 'schema_lock']) {
      rows[meta] = await ds.query(`SELECT * FROM ${meta} ORDER BY 1`);
    }
    return { tables, rows };
  } finally {
    await ds.destroy();
  }
}

/**
 * What every test file's database is (test/setup/test-database.ts, docs/testing.md): under
 * scripts/run-tests.mjs a copy of the leg's template, migrated once per run. The copy must be what
 * the migrations themselves make, or the tests (schema drift first) would test something else.
 */
describe(`test databases (${testDbKind()})`, () => {
  it('a test database is exactly what the migrations make: the same tables, keys and seeded rows', async () => {
    const copy = await createTestDatabase();
    const migrated = await createTestDatabase({ empty: true });
    try {
      const expected = await snapshot(migrated); // migrates it, as the app's start does
      const got = await snapshot(copy);
      assert.ok(Object.keys(expected.tables).length > 10, 'the migrations made the tables');
      assert.ok(expected.rows.migrations.length > 10, 'the migrations are recorded');
      assert.deepEqual(got, expected);
    } finally {
      await copy.drop();
      await migrated.drop();
    }
  });

  it('an empty database has no tables, for the tests of the migrations and of a first start', async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      // A plain connection: openDataSource would migrate it.
      const ds = await new DataSource(buildDataSourceOptions(loadConfig(db.env).database)).initialize();
      try {
        assert.deepEqual(await definitions(ds), {});
      } finally {
        await ds.destroy();
      }
    } finally {
      await db.drop();
    }
  });
});

if (testDbKind() === 'mysql') {
  describe('test schemas a file leaves behind (MySQL)', () => {
    it("are dropped with the leg's template: every schema under its prefix, no other", async () => {
      const server = process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test';
      const template = await prepareTemplate('mysql', server);
      const prefix = template.env[PREFIX_ENV];
      // Left by two files of the leg; and one of another run whose prefix only starts the same.
      const left = [await createMysqlDatabase(server, prefix), await createMysqlDatabase(server, prefix)];
      const other = await createMysqlDatabase(server, `${prefix}0`);
      const schemas = async () => {
        const connection = await createConnection({ uri: server });
        try {
          const [found] = await connection.query<{ name: string }[] & []>(
            'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA',
          );
          return found.map((row) => row.name).filter((name) => name.startsWith(prefix));
        } finally {
          await connection.end();
        }
      };
      try {
        assert.equal((await schemas()).length, 3);
        await template.drop();
        const after = await schemas();
        assert.equal(after.length, 1, `left: ${after.join(', ')}`);
        assert.match(after[0], new RegExp(`^${prefix}0_`));
      } finally {
        await Promise.all([...left, other].map((db) => db.drop()));
      }
    });
  });
}
