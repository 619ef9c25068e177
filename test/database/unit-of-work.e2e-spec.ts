import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnection } from 'mysql2/promise';
import { DataSource, EntityManager } from 'typeorm';
import { dateParam } from '../../src/database/db-values';
import { PoolReadInsideUnitError } from '../../src/database/unit-context';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { TransactionDriver } from '../factories/transaction-states';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';

const mysql = testDbKind() === 'mysql';

describe('the unit of work (contract §17)', () => {
  let t: TestApp;
  let db: DataSource;
  let uow: UnitOfWork;
  before(async () => {
    t = await startApp({ env: { DB_ACQUIRE_TIMEOUT_MS: '1000' } });
    db = t.app.get(DataSource);
    uow = t.app.get(UnitOfWork);
    for (const code of ['AAA', 'BBB']) {
      await db.query('INSERT INTO currencies (code, digits, created_at) VALUES (?, 2, ?)', [
        code,
        dateParam(db, new Date()),
      ]);
    }
  });
  after(() => t.close());

  const digits = async (code: string) =>
    Number(
      (await db.query<{ digits: number }[]>('SELECT digits FROM currencies WHERE code = ?', [code]))[0]
        .digits,
    );
  const bump = (m: EntityManager, code: string) =>
    m.query('UPDATE currencies SET digits = digits + 1 WHERE code = ?', [code]);

  it('runs a unit that lost a deadlock again, whole, so both writers commit exactly once', async () => {
    const [a, b] = [await digits('AAA'), await digits('BBB')];
    const retriesBefore = uow.stats.retries;
    let runs = 0;
    // Opposite lock order: on MySQL InnoDB picks one as the deadlock victim (errno 1213).
    const first = uow.run(async (m) => {
      runs++;
      await bump(m, 'AAA');
      await sleep(150);
      await bump(m, 'BBB');
    });
    const second = uow.run(async (m) => {
      runs++;
      await bump(m, 'BBB');
      await sleep(150);
      await bump(m, 'AAA');
    });
    await Promise.all([first, second]);
    assert.deepEqual([await digits('AAA'), await digits('BBB')], [a + 2, b + 2]);
    if (mysql) {
      assert.ok(uow.stats.retries > retriesBefore, 'the victim was retried');
      assert.ok(runs >= 3, `the victim ran again (${runs} runs)`);
    } else {
      assert.equal(runs, 2, 'the embedded database runs units one after the other');
    }
  });

  it('runs after-commit callbacks once the unit committed, outside it, and never after a rollback', async () => {
    const seen: string[] = [];
    await uow.run(async (m) => {
      await bump(m, 'AAA');
      uow.afterCommit(m, () => {
        seen.push('committed');
        // Outside the unit: the pool may be used again (on MySQL it refuses inside a unit).
        void db.query('SELECT 1').then(() => seen.push('pool read'));
      });
      assert.deepEqual(seen, [], 'not before the commit');
    });
    await assert.rejects(
      uow.run(async (m) => {
        await bump(m, 'AAA');
        uow.afterCommit(m, () => seen.push('rolled back'));
        throw new Error('roll back on purpose');
      }),
      /roll back on purpose/,
    );
    await sleep(100);
    assert.deepEqual(seen, ['committed', 'pool read']);
  });

  if (mysql) {
    it('refuses a pooled connection asked for inside a unit (it could deadlock the pool)', async () => {
      await assert.rejects(
        uow.run(async () => {
          await db.query('SELECT 1');
        }),
        PoolReadInsideUnitError,
      );
    });

    it('gives up after repeated lock-wait timeouts with 503 and Retry-After, and works again once the lock is gone', async () => {
      const s: Seeded = await seedBasics(t);
      const id = String((await new TransactionDriver(t, s.apiKey).create()).session_id);
      const holder = await createConnection({ uri: t.db.env.DATABASE_URL });
      try {
        await holder.query('START TRANSACTION');
        await holder.query('SELECT id FROM transactions WHERE session_id = ? FOR UPDATE', [id]);
        const exhaustedBefore = uow.stats.exhausted;
        const started = Date.now();
        const res = await t
          .http()
          .patch(`/b/checkout/v1/pymt-txn/${id}/`)
          .set('Authorization', s.apiKey)
          .send({ vendor_name: 'blocked' });
        assert.equal(res.status, 503, JSON.stringify(res.body));
        assert.deepEqual(res.body, { detail: 'Service temporarily unavailable.' });
        assert.equal(res.headers['retry-after'], '1');
        assert.equal(uow.stats.exhausted, exhaustedBefore + 1);
        // six runs, each waiting the 1 s lock-wait timeout the session was given
        assert.ok(Date.now() - started < 15_000);
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      const ok = await t
        .http()
        .patch(`/b/checkout/v1/pymt-txn/${id}/`)
        .set('Authorization', s.apiKey)
        .send({ vendor_name: 'free again' })
        .expect(200);
      assert.equal(ok.body.vendor_name, 'free again');
    });
  } else {
    it('lets a query inside a unit through the gate the unit holds', async () => {
      const value = await uow.run(async () => (await db.query<{ one: number }[]>('SELECT 1 AS one'))[0].one);
      assert.equal(value, 1);
    });

    it('answers 503 with Retry-After when the embedded database stays busy past the acquire timeout', async () => {
      const s: Seeded = await seedBasics(t);
      const id = String((await new TransactionDriver(t, s.apiKey).create()).session_id);
      const busy = uow.run(() => sleep(2500));
      const res = await t
        .http()
        .patch(`/b/checkout/v1/pymt-txn/${id}/`)
        .set('Authorization', s.apiKey)
        .send({ vendor_name: 'blocked' });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.deepEqual(res.body, { detail: 'Service temporarily unavailable.' });
      assert.equal(res.headers['retry-after'], '1');
      await busy;
      await t
        .http()
        .patch(`/b/checkout/v1/pymt-txn/${id}/`)
        .set('Authorization', s.apiKey)
        .send({ vendor_name: 'free again' })
        .expect(200);
    });
  }

  it('refuses to open a unit inside another one', async () => {
    await assert.rejects(
      uow.run(() => uow.run(() => Promise.resolve())),
      /inside another unit of work/,
    );
  });
});
