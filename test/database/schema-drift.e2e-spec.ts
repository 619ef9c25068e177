import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource, type EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { startApp, TestApp } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';

/**
 * The column types each dialect's migrations use on purpose for an entity's declared type
 * (docs/architecture.md "Data layer"): SQLite keys are INTEGER (its rowid), money is VARCHAR(40)
 * so the decimal text survives; MySQL keeps idempotent replays in MEDIUMTEXT.
 */
const EQUIVALENT: Record<'mysql' | 'sqlite', Record<string, string[]>> = {
  sqlite: { bigint: ['integer'], decimal: ['varchar(40)'] },
  mysql: { text: ['mediumtext'] },
};

const columnKey = (cols: { databaseName: string }[] | string[]) =>
  cols.map((c) => (typeof c === 'string' ? c : c.databaseName)).join(',');

/** What the entities say about one table, and what the migrated database has. */
async function differences(ds: DataSource, meta: EntityMetadata): Promise<string[]> {
  const runner = ds.createQueryRunner();
  try {
    const table = await runner.getTable(meta.tablePath);
    if (!table) return [`${meta.tableName}: the migrations create no such table`];
    const problems: string[] = [];
    const dialect = testDbKind();
    const migrated = new Map(table.columns.map((c) => [c.name, c]));
    for (const column of meta.columns) {
      const have = migrated.get(column.databaseName);
      if (!have) {
        problems.push(`${meta.tableName}.${column.databaseName}: mapped but not migrated`);
        continue;
      }
      migrated.delete(column.databaseName);
      const wanted = typeText(ds, column);
      const got = `${have.type}${have.length ? `(${have.length})` : ''}`;
      if (got !== wanted && !(EQUIVALENT[dialect][wanted] ?? []).includes(got)) {
        problems.push(`${meta.tableName}.${column.databaseName}: entity ${wanted}, database ${got}`);
      }
      if (have.isNullable !== column.isNullable) {
        problems.push(
          `${meta.tableName}.${column.databaseName}: entity nullable=${column.isNullable}, database ${have.isNullable}`,
        );
      }
    }
    for (const name of migrated.keys()) problems.push(`${meta.tableName}.${name}: migrated but not mapped`);

    const uniqueInDb = new Set([
      ...table.indices.filter((i) => i.isUnique).map((i) => i.columnNames.join(',')),
      ...table.uniques.map((u) => u.columnNames.join(',')),
    ]);
    const uniqueInEntity = new Set([
      ...meta.indices.filter((i) => i.isUnique).map((i) => columnKey(i.columns)),
      ...meta.uniques.map((u) => columnKey(u.columns)),
    ]);
    for (const key of uniqueInEntity)
      if (!uniqueInDb.has(key)) problems.push(`${meta.tableName}: unique (${key}) declared, not migrated`);
    for (const key of uniqueInDb)
      if (!uniqueInEntity.has(key))
        problems.push(`${meta.tableName}: unique (${key}) migrated, not declared`);
    return problems;
  } finally {
    await runner.release();
  }
}

function typeText(ds: DataSource, column: ColumnMetadata): string {
  const type = ds.driver.normalizeType(column);
  return column.length ? `${type}(${column.length})` : type;
}

/**
 * The schema the migrations build is the one the entities describe (one schema for both dialects): every mapped
 * column exists with its type, length and nullability; no migrated column goes unmapped (a
 * generated migration would drop it); unique keys agree. On the dialect this leg runs.
 */
describe(`schema drift (${testDbKind()})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('the migrated tables match the entities', async () => {
    const ds = t.app.get(DataSource);
    const problems: string[] = [];
    for (const meta of ds.entityMetadatas) problems.push(...(await differences(ds, meta)));
    assert.deepEqual(problems, []);
  });

  it('notices a column the entities do not map', async () => {
    const ds = t.app.get(DataSource);
    const meta = ds.getMetadata('currencies');
    await ds.query('ALTER TABLE currencies ADD COLUMN drifted int NULL');
    try {
      assert.deepEqual(await differences(ds, meta), ['currencies.drifted: migrated but not mapped']);
    } finally {
      await ds.query('ALTER TABLE currencies DROP COLUMN drifted');
    }
  });
});
