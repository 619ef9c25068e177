import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { isConnectionLoss, isDatabaseUnavailable } from '../../src/database/db-errors';
import { isUniqueViolation } from '../../src/database/db-values';
import { insertRow, selectOneBy, statement } from '../../src/database/single-row';
import { PoolReadInsideUnitError } from '../../src/database/unit-context';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { OutboxEvent } from '../../src/events/event.entity';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import { testDbKind } from '../setup/test-database';

const LIMIT_MS = 1500;
const mysql = testDbKind() === 'mysql';

let sequence = 0;
/** A row of `events` (no foreign keys: any transaction id will do). */
function eventRow(overrides: Partial<OutboxEvent> = {}): Partial<OutboxEvent> {
  return {
    eventId: randomUUID(),
    transactionId: '42',
    sessionId: `sess_${randomUUID().slice(0, 8)}`,
    sequence: ++sequence,
    event: 'created',
    payload: { amount: '1.500', nested: { list: [1, 'two', null] } },
    context: { language: 'en', checkout_url: 'https://x.test/c', attachment_url: null, merchant_name: 'M' },
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    ...overrides,
  };
}

/**
 * insertRow / selectOneBy (issues #13, #25): on MySQL they run straight on the mysql2 connection
 * (the unit's, or one from the failover pool), on SQLite through `manager.query`; either way they
 * read and write what TypeORM does, fail as TypeORM does, and keep the pool's rules.
 */
describe('insertRow and selectOneBy', () => {
  let ctx: ServiceContext;
  let db: DataSource;
  let uow: UnitOfWork;
  before(async () => {
    ctx = await createServiceContext({ imports: [], env: { DB_QUERY_TIMEOUT_MS: String(LIMIT_MS) } });
    db = ctx.dataSource;
    uow = ctx.get(UnitOfWork);
  });
  after(() => ctx.close());

  const byTypeorm = (eventId: string) => db.getRepository(OutboxEvent).findOneBy({ eventId });

  it('writes rows inside and outside a unit that read back as TypeORM reads them', async () => {
    const outside = eventRow();
    const inside = eventRow({ feedPosition: '7' });
    const outsideId = await insertRow(db.manager, OutboxEvent, outside);
    const insideId = await uow.run((manager) => insertRow(manager, OutboxEvent, inside));
    assert.match(outsideId, /^\d+$/);
    assert.equal(BigInt(insideId), BigInt(outsideId) + 1n);
    for (const [row, id] of [
      [outside, outsideId],
      [inside, insideId],
    ] as const) {
      const expected = await byTypeorm(row.eventId!);
      assert.ok(expected);
      assert.equal(String(expected.id), id);
      assert.deepEqual(expected.payload, row.payload);
      assert.equal(expected.createdAt.toISOString(), row.createdAt!.toISOString());
      const read = await selectOneBy(db.manager, OutboxEvent, 'event_id', row.eventId);
      assert.ok(read instanceof OutboxEvent);
      assert.deepEqual(read, expected);
      const readInside = await uow.run((manager) =>
        selectOneBy(manager, OutboxEvent, 'event_id', row.eventId),
      );
      assert.deepEqual(readInside, expected);
    }
    // The column left out took its default; the one given was written.
    assert.equal((await byTypeorm(outside.eventId!))?.feedPosition, null);
    assert.equal(String((await byTypeorm(inside.eventId!))?.feedPosition), '7');
    assert.equal(await selectOneBy(db.manager, OutboxEvent, 'event_id', randomUUID()), null);
  });

  it("runs inside a unit on the unit's own transaction", async () => {
    const row = eventRow();
    const rolledBack = new Error('roll back');
    await assert.rejects(
      uow.run(async (manager) => {
        await insertRow(manager, OutboxEvent, row);
        const seen = await selectOneBy(manager, OutboxEvent, 'event_id', row.eventId);
        assert.equal(seen?.eventId, row.eventId, 'the unit sees its own row');
        throw rolledBack;
      }),
      (error) => error === rolledBack,
    );
    assert.equal(await selectOneBy(db.manager, OutboxEvent, 'event_id', row.eventId), null);
  });

  it('fails on a duplicate key with the QueryFailedError manager.query gives, inside and outside a unit', async () => {
    const row = eventRow();
    await insertRow(db.manager, OutboxEvent, row);
    const again = { ...row, sequence: ++sequence };
    const outside = await insertRow(db.manager, OutboxEvent, again).then(
      () => assert.fail('inserted twice'),
      (error: unknown) => error,
    );
    const inside = await uow
      .run((manager) => insertRow(manager, OutboxEvent, again))
      .then(
        () => assert.fail('inserted twice'),
        (error: unknown) => error,
      );
    assert.ok(outside instanceof QueryFailedError);
    assert.ok(inside instanceof QueryFailedError);
    assert.ok(isUniqueViolation(outside) && isUniqueViolation(inside));
    assert.match(outside.query, /^INSERT INTO /);
    assert.equal(outside.parameters?.length, inside.parameters?.length);
    // The same statement through TypeORM's query runner fails alike.
    const typeorm = await db.query(outside.query, outside.parameters).then(
      () => assert.fail('inserted twice'),
      (error: unknown) => error,
    );
    assert.ok(typeorm instanceof QueryFailedError);
    assert.equal(outside.message, typeorm.message);
    const fields = (e: QueryFailedError) => {
      const d = e.driverError as unknown as Record<string, unknown>;
      return {
        code: d.code,
        errno: d.errno,
        sqlState: d.sqlState,
        sqlMessage: d.sqlMessage,
        message: d.message,
      };
    };
    assert.deepEqual(fields(outside), fields(typeorm));
    assert.deepEqual(fields(inside), fields(typeorm));
    assert.equal(await db.getRepository(OutboxEvent).countBy({ eventId: row.eventId }), 1);
  });

  it('statement() writes as manager.query does, inside and outside a unit, and fails as it does', async () => {
    const row = eventRow();
    await insertRow(db.manager, OutboxEvent, row);
    const update = 'UPDATE events SET event = ? WHERE event_id = ?';
    const outside = await statement(db.manager, update, ['paid', row.eventId]);
    const inside = await uow.run((manager) => statement(manager, update, ['expired', row.eventId]));
    if (mysql) {
      // mysql2's ResultSetHeader, as manager.query gives on MySQL
      assert.equal((outside as { affectedRows: number }).affectedRows, 1);
      assert.equal((inside as { affectedRows: number }).affectedRows, 1);
    }
    assert.equal((await byTypeorm(row.eventId!))?.event, 'expired');
    const failure = await statement(db.manager, 'UPDATE no_such_table SET x = 1', []).then(
      () => null,
      (error: unknown) => error,
    );
    const typeorm = await db.manager.query('UPDATE no_such_table SET x = 1').then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(failure instanceof QueryFailedError, String(failure));
    assert.ok(typeorm instanceof QueryFailedError, String(typeorm));
    assert.equal(failure.message, typeorm.message);
  });

  // MySQL only: the failover pool's rules (SQLite has its own gate, and no statement limit).
  if (mysql) {
    it('inside a unit, refuses to take a second pooled connection (contract §17)', async () => {
      await assert.rejects(
        uow.run(() => selectOneBy(db.manager, OutboxEvent, 'event_id', randomUUID())),
        PoolReadInsideUnitError,
      );
      await assert.rejects(
        uow.run(() => insertRow(db.manager, OutboxEvent, eventRow())),
        PoolReadInsideUnitError,
      );
    });

    describe('the statement time limit (contract §17)', () => {
      /** Another session holding `events` locked: every statement on it waits. */
      async function whileLocked<T>(work: () => Promise<T>): Promise<T> {
        const holder = await createConnection({ uri: ctx.db.env.DATABASE_URL });
        try {
          await holder.query('LOCK TABLES events WRITE');
          return await work();
        } finally {
          await holder.query('UNLOCK TABLES');
          await holder.end();
        }
      }

      /** The failover pool sets the node that did not answer aside; it is back within a second or so. */
      async function poolAnswers(): Promise<void> {
        for (let i = 0; i < 50; i++) {
          if (
            await db.query('SELECT 1').then(
              () => true,
              () => false,
            )
          )
            return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.fail('the pool does not answer again');
      }

      /** `statement` fails as a statement cut at the limit (DB_STATEMENT_TIMEOUT), in time. */
      async function assertCutAtLimit(statement: () => Promise<unknown>): Promise<void> {
        const started = Date.now();
        const failure = await statement().then(
          () => null,
          (error: unknown) => error,
        );
        const ms = Date.now() - started;
        assert.ok(failure instanceof QueryFailedError, String(failure));
        assert.equal((failure.driverError as { code?: string }).code, 'DB_STATEMENT_TIMEOUT');
        assert.ok(ms < LIMIT_MS + 500, `failed after ${ms} ms`);
      }

      it('cuts an INSERT and a SELECT of a unit that wait past its limit', async () => {
        for (const statement of [
          (manager: EntityManager) => insertRow(manager, OutboxEvent, eventRow()),
          (manager: EntityManager) => selectOneBy(manager, OutboxEvent, 'event_id', randomUUID()),
        ]) {
          await poolAnswers();
          const failures: unknown[] = [];
          const started = Date.now();
          const outcome = await whileLocked(() =>
            uow
              .run(async (manager) => {
                try {
                  return await statement(manager);
                } catch (error) {
                  failures.push(error);
                  throw error;
                }
              })
              .then(
                () => null,
                (error: unknown) => error,
              ),
          );
          const ms = Date.now() - started;
          // 503: the unit gave up (ServiceUnavailable), or no connection came in the time left.
          assert.ok(
            (outcome as { status?: number } | null)?.status === 503 || isDatabaseUnavailable(outcome),
            String(outcome),
          );
          assert.ok(ms < LIMIT_MS + 500, `gave up after ${ms} ms`);
          assert.ok(failures.length >= 1);
          const first = failures[0];
          assert.ok(first instanceof QueryFailedError, String(first));
          assert.equal((first.driverError as { code?: string }).code, 'DB_STATEMENT_TIMEOUT');
          assert.ok(isConnectionLoss(first));
        }
      });

      it("cuts TypeORM's own statements past the limit too, through the one promise wrapper each connection keeps", async () => {
        await poolAnswers();
        const runner = db.createQueryRunner();
        try {
          await runner.query('SELECT 1');
          type Wrapped = { promise(): unknown };
          const connection = (runner as unknown as { databaseConnection: Wrapped }).databaseConnection;
          // mysql2 builds a new wrapper per call; the pool keeps one per connection (failover-pool.ts).
          assert.equal(connection.promise(), connection.promise());
          await assertCutAtLimit(() => runner.query(`SELECT SLEEP(${(LIMIT_MS + 1500) / 1000})`));
        } finally {
          await runner.release();
        }
        await poolAnswers();
      });

      it('cuts a SELECT outside a unit that waits past the statement limit', async () => {
        await poolAnswers();
        await assertCutAtLimit(() =>
          whileLocked(() => selectOneBy(db.manager, OutboxEvent, 'event_id', randomUUID())),
        );
        // The cut connection is not handed out again: the next statements run.
        await poolAnswers();
        const row = eventRow();
        await insertRow(db.manager, OutboxEvent, row);
        assert.equal(
          (await selectOneBy(db.manager, OutboxEvent, 'event_id', row.eventId))?.eventId,
          row.eventId,
        );
      });
    });
  }
});
