import { randomBytes } from 'node:crypto';
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/** A fresh, empty database for one test file: a new MySQL schema, or a new SQLite file. */
export interface TestDatabase {
  kind: 'mysql' | 'sqlite';
  /** Environment variables that point the app at it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export const testDbKind = (): 'mysql' | 'sqlite' => (process.env.TEST_DB === 'mysql' ? 'mysql' : 'sqlite');

export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDbKind() === 'sqlite') {
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
  return createMysqlDatabase(process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test');
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
