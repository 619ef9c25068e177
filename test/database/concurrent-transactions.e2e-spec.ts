import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { DataSource, EntityManager } from 'typeorm';
import { dateParam } from '../../src/database/db-values';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { startApp, TestApp } from '../setup/test-app';

/**
 * One request's rollback must never undo another request's committed work. (On the embedded
 * SQLite database TypeORM shares one connection, so without the unit of work's gate a concurrent
 * transaction nests as a savepoint of the first and dies with its rollback.)
 */
describe('concurrent database transactions', () => {
  let t: TestApp;
  let db: DataSource;
  let uow: UnitOfWork;
  before(async () => {
    t = await startApp();
    db = t.app.get(DataSource);
    uow = t.app.get(UnitOfWork);
  });
  after(() => t.close());

  const insertCurrency = (runner: DataSource | EntityManager, code: string) =>
    runner.query('INSERT INTO currencies (code, digits, created_at) VALUES (?, ?, ?)', [
      code,
      2,
      dateParam(runner, new Date()),
    ]);
  const codes = async () =>
    (await db.query<{ code: string }[]>('SELECT code FROM currencies ORDER BY code')).map((r) => r.code);

  it('a transaction that commits while another is open survives the other’s rollback', async () => {
    const failing = uow
      .run(async (manager) => {
        await insertCurrency(manager, 'AAA');
        await sleep(100);
        throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => error.message);
    await sleep(20);
    const committing = uow.run(async (manager) => {
      await insertCurrency(manager, 'BBB');
      return 'committed';
    });
    assert.deepEqual(await Promise.all([failing, committing]), ['rolled back on purpose', 'committed']);
    assert.deepEqual(await codes(), ['BBB']);
  });

  it('a plain write made while a transaction is open is not undone by its rollback', async () => {
    const failing = uow
      .run(async (manager) => {
        await insertCurrency(manager, 'CCC');
        await sleep(100);
        throw new Error('rolled back on purpose');
      })
      .catch(() => 'failed');
    await sleep(20);
    await insertCurrency(db, 'DDD');
    assert.equal(await failing, 'failed');
    assert.ok((await codes()).includes('DDD'));
    assert.ok(!(await codes()).includes('CCC'));
  });
});
