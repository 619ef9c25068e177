import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { openDataSource } from '../../src/database/open-data-source';

/** A database of its own for one test file: a new MySQL schema, or a new SQLite file. */
export interface TestDatabase {
  kind: 'mysql' | 'sqlite';
  /** Environment variables that point the app at it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /**
   * No tables at all, not even the migrations' own: for the tests of the migrations themselves and
   * of a start that runs them. Without it the database is migrated (a copy of the run's template).
   */
  empty?: boolean;
}

export const testDbKind = (): 'mysql' | 'sqlite' => (process.env.TEST_DB === 'mysql' ? 'mysql' : 'sqlite');

const mysqlServer = (): string => process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test';

/**
 * Where scripts/run-tests.mjs left the leg's migrated template (prepareTemplate): every test file
 * clones it instead of running the migrations. Unset (a file run on its own with `node --test`),
 * each database is migrated where it is made.
 */
export const TEMPLATE_ENV = 'TEST_DB_TEMPLATE';
/**
 * The name prefix of the MySQL schemas a leg's test files make (prepareTemplate sets it, one per
 * leg and run): the schemas a file left behind (an app ended with `app.close()` to keep its
 * database, a file that failed half way) are dropped with the template. Unset: `checkout_t`.
 */
export const PREFIX_ENV = 'TEST_DB_PREFIX';

/** What a clone needs, written once per leg by prepareTemplate (a JSON file named by TEST_DB_TEMPLATE). */
type Template =
  | { kind: 'sqlite'; file: string }
  | {
      kind: 'mysql';
      schema: string;
      /** Every table's `SHOW CREATE TABLE` (foreign keys included), then the copies of the rows. */
      statements: string[];
    };

let template: Template | null | undefined;
function leftTemplate(): Template | null {
  if (template === undefined) {
    const path = process.env[TEMPLATE_ENV];
    template = path ? (JSON.parse(readFileSync(path, 'utf8')) as Template) : null;
  }
  return template;
}

/**
 * A database for one test file on the current leg (TEST_DB), migrated to the latest schema with the
 * rows the migrations seed (the app's start then finds nothing pending), or `empty`.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const kind = testDbKind();
  const db =
    kind === 'sqlite'
      ? createSqliteFile()
      : await createMysqlDatabase(mysqlServer(), process.env[PREFIX_ENV] ?? undefined);
  if (options.empty) return db;
  const from = leftTemplate();
  try {
    if (from === null) await migrate(db);
    else if (from.kind !== kind)
      throw new Error(`${TEMPLATE_ENV} is a ${from.kind} template on the ${kind} leg`);
    else if (from.kind === 'sqlite') copyFileSync(from.file, db.env.SQLITE_PATH);
    else await runOn(db, from.statements);
  } catch (error) {
    await db.drop();
    throw error;
  }
  return db;
}

function createSqliteFile(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'checkout-test-'));
  return {
    kind: 'sqlite',
    env: { SQLITE_PATH: join(dir, 'checkout.sqlite') },
    drop: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

/** A new, empty schema on the MySQL server at `serverUrl` (also used by `npm run bench`). */
export async function createMysqlDatabase(server: string, namePrefix = 'checkout_t'): Promise<TestDatabase> {
  const serverUrl = new URL(server);
  const name = `${namePrefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = await createConnection({ uri: serverUrl.toString() });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const url = new URL(serverUrl.toString());
  url.pathname = `/${name}`;
  return {
    kind: 'mysql',
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      const connection = await createConnection({ uri: serverUrl.toString() });
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}

/** Applies every migration to `db` the way the app's start does (the migration lock included). */
async function migrate(db: TestDatabase): Promise<void> {
  const dataSource = await openDataSource(buildDataSourceOptions(loadConfig(db.env).database));
  if (db.kind === 'sqlite') await dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)');
  await dataSource.destroy();
}

const schemaOf = (db: TestDatabase): string => new URL(db.env.DATABASE_URL).pathname.slice(1);
const quoted = (name: string): string => `\`${name.replace(/`/g, '``')}\``;

async function onSchema<T>(db: TestDatabase, work: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await createConnection({ uri: db.env.DATABASE_URL, multipleStatements: true });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** Runs `statements` in `db`'s schema in one round trip, foreign keys unchecked (tables in any order). */
function runOn(db: TestDatabase, statements: string[]): Promise<void> {
  return onSchema(db, async (connection) => {
    await connection.query(
      ['SET FOREIGN_KEY_CHECKS = 0', ...statements, 'SET FOREIGN_KEY_CHECKS = 1'].join(';\n'),
    );
  });
}

/**
 * What makes a MySQL schema a copy of the migrated `db`: each table as `SHOW CREATE TABLE` gives it
 * (columns, keys, foreign keys, options), then `INSERT … SELECT` of the rows of every table that has
 * some (the `migrations` table, rows a migration seeds). Anything else in the schema (a view, a
 * trigger, a routine) would not be copied: refused, so a clone never silently differs.
 */
async function cloneStatements(db: TestDatabase): Promise<string[]> {
  const schema = schemaOf(db);
  return onSchema(db, async (connection) => {
    const [others] = await connection.query<[]>(
      `SELECT 'view' AS what, TABLE_NAME AS name FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?
       UNION ALL SELECT 'trigger', TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?
       UNION ALL SELECT LOWER(ROUTINE_TYPE), ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?
       UNION ALL SELECT 'event', EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ?`,
      [schema, schema, schema, schema],
    );
    if (others.length > 0) {
      throw new Error(
        `The migrated schema holds what the test template does not copy (test/setup/test-database.ts): ${JSON.stringify(others)}`,
      );
    }
    const [tables] = await connection.query<{ name: string }[] & []>(
      `SELECT TABLE_NAME AS name FROM information_schema.TABLES
       WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`,
      [schema],
    );
    const creates: string[] = [];
    const copies: string[] = [];
    for (const { name } of tables) {
      const [[shown]] = await connection.query<{ 'Create Table': string }[] & []>(
        `SHOW CREATE TABLE ${quoted(name)}`,
      );
      creates.push(shown['Create Table']);
      const [[{ n }]] = await connection.query<{ n: number | string }[] & []>(
        `SELECT COUNT(*) AS n FROM ${quoted(name)}`,
      );
      if (Number(n) === 0) continue;
      const [columns] = await connection.query<{ name: string }[] & []>(
        `SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS
         WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND EXTRA NOT LIKE '%GENERATED%' ORDER BY ORDINAL_POSITION`,
        [schema, name],
      );
      const list = columns.map((c) => quoted(c.name)).join(', ');
      copies.push(
        `INSERT INTO ${quoted(name)} (${list}) SELECT ${list} FROM ${quoted(schema)}.${quoted(name)}`,
      );
    }
    return [...creates, ...copies];
  });
}

/** A leg's migrated template, made once per run by scripts/run-tests.mjs before its workers start. */
export interface PreparedTemplate {
  /** TEST_DB_TEMPLATE (and on MySQL TEST_DB_PREFIX) for the workers. */
  env: Record<string, string>;
  /** Drops the template, and on MySQL every schema made under the leg's prefix and still there. */
  drop(): Promise<void>;
}

/** Drops the schemas whose names start with `prefix` + `_` on `server`; how many there were. */
async function dropSchemasNamed(server: string, prefix: string): Promise<number> {
  const connection = await createConnection({ uri: server });
  try {
    const like = `${prefix}_`.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
    const [left] = await connection.query<{ name: string }[] & []>(
      'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?',
      [like],
    );
    for (const { name } of left) await connection.query(`DROP DATABASE IF EXISTS ${quoted(name)}`);
    return left.length;
  } finally {
    await connection.end();
  }
}

/**
 * Makes the `kind` leg's template: an empty database migrated as the app's start migrates one (a
 * SQLite file, or a schema on MYSQL_TEST_URL's server), described in a JSON file the clones read.
 */
export async function prepareTemplate(
  kind: 'mysql' | 'sqlite',
  mysqlUrl = mysqlServer(),
): Promise<PreparedTemplate> {
  const db = kind === 'sqlite' ? createSqliteFile() : await createMysqlDatabase(mysqlUrl, 'checkout_tpl');
  const dir = mkdtempSync(join(tmpdir(), 'checkout-template-'));
  // Its workers' schemas: checkout_t_<this run and leg>_<pid>_<random>.
  const prefix = `checkout_t_${randomBytes(3).toString('hex')}`;
  const drop = async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
    if (kind === 'mysql') await dropSchemasNamed(mysqlUrl, prefix);
  };
  try {
    await migrate(db);
    const described: Template =
      db.kind === 'sqlite'
        ? { kind: 'sqlite', file: db.env.SQLITE_PATH }
        : { kind: 'mysql', schema: schemaOf(db), statements: await cloneStatements(db) };
    const file = join(dir, 'template.json');
    writeFileSync(file, JSON.stringify(described));
    const env: Record<string, string> = { [TEMPLATE_ENV]: file };
    if (kind === 'mysql') env[PREFIX_ENV] = prefix;
    return { env, drop };
  } catch (error) {
    await drop();
    throw error;
  }
}
