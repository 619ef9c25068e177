import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnection, type Connection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { DatabaseHealth } from '../../src/database/database-health';
import { withoutStatementLimit } from '../../src/database/failover-pool';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { eventually } from '../events/event-helpers';
import { CREATE_PATH } from '../factories/transaction-states';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTestDatabase, TestDatabase, testDbKind } from '../setup/test-database';
import { TcpProxy } from '../sinks/tcp-proxy';

const UNAVAILABLE = '{"detail":"Service temporarily unavailable."}';
/** contract §17: every request gets an answer within 10 s. */
const ANSWER_WITHIN_MS = 10_000;

interface Answer {
  status: number;
  /** When it was sent (ms since the epoch), to say when a slow one started. */
  startedAt: number;
  ms: number;
  body: unknown;
  retryAfter: string | undefined;
}

async function create(t: TestApp, s: Seeded): Promise<Answer> {
  const started = Date.now();
  const res = await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody());
  return {
    status: res.status,
    startedAt: started,
    ms: Date.now() - started,
    body: res.body,
    retryAfter: res.headers['retry-after'],
  };
}

/** 503 with the contract §17 body and `Retry-After`. */
function isUnavailable(a: Answer): boolean {
  return a.status === 503 && JSON.stringify(a.body) === UNAVAILABLE && a.retryAfter === '1';
}

/** Creates from `workers` clients at once until stopped; every answer with its time. */
function steadyLoad(t: TestApp, s: Seeded, workers = 4): { stop: () => Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      answers.push(await create(t, s));
      await sleep(20);
    }
  };
  const loops = Promise.all(Array.from({ length: workers }, loop));
  return {
    stop: async () => {
      running = false;
      await loops;
      return answers;
    },
  };
}

/** Only 201, or 503 with its body and Retry-After; none later than `limitMs`. */
function assertAnsweredInTime(answers: Answer[], limitMs = ANSWER_WITHIN_MS, since?: number): void {
  const broken = answers.filter((a) => a.status !== 201 && !isUnavailable(a));
  assert.deepEqual(broken, [], 'only 201, or 503 with Retry-After');
  const when = (a: Answer) =>
    since === undefined ? '' : `, sent ${a.startedAt - since} ms after the freeze`;
  const slow = answers.filter((a) => a.ms > limitMs).map((a) => `${a.status} in ${a.ms} ms${when(a)}`);
  assert.deepEqual(slow, [], `every request answered within ${limitMs} ms`);
}

/** `DATABASE_URL` of the test database, reached through the given `host:port`s in order. */
function urlThrough(db: TestDatabase, hosts: string[]): string {
  const url = new URL(db.env.DATABASE_URL);
  return `mysql://${url.username}${url.password ? `:${url.password}` : ''}@${hosts.join(',')}${url.pathname}`;
}

async function threadAlive(observer: Connection, id: number): Promise<boolean> {
  const [rows] = await observer.query('SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ?', [id]);
  return (rows as unknown[]).length > 0;
}

/** The app's thread waiting on a lock in the test database (the statement the test holds up). */
async function waitingThread(observer: Connection, database: string): Promise<number> {
  return eventually(
    async () => {
      const [rows] = await observer.query(
        `SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND STATE LIKE '%lock%' AND COMMAND = 'Query'`,
        [database],
      );
      return (rows as { ID: number }[])[0]?.ID;
    },
    900,
    'a statement of the app to wait on the lock',
  );
}

async function metric(t: TestApp, name: string): Promise<number> {
  const res = await t.http().get('/metrics').set('Authorization', adminAuth()).expect(200);
  const line = res.text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

// Statement time limits and hung servers need MySQL: the embedded database has no server to hang.
if (testDbKind() === 'mysql') {
  const server = new URL(process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test');
  const target = { host: server.hostname, port: Number(server.port || 3306) };

  describe('a statement that gets no answer within DB_QUERY_TIMEOUT_MS (contract §17)', () => {
    const LIMIT_MS = 1000;
    let t: TestApp;
    let s: Seeded;
    let holder: Connection;
    let observer: Connection;
    let database: string;
    before(async () => {
      // Lock waits of the app's sessions (3 s, from the acquire timeout) outlast the 1 s limit.
      t = await startApp({ env: { DB_QUERY_TIMEOUT_MS: String(LIMIT_MS), DB_ACQUIRE_TIMEOUT_MS: '3000' } });
      s = await seedBasics(t);
      holder = await createConnection({ uri: t.db.env.DATABASE_URL });
      observer = await createConnection({ uri: t.db.env.DATABASE_URL });
      database = new URL(t.db.env.DATABASE_URL).pathname.slice(1);
      await holder.query('CREATE TABLE held (id int PRIMARY KEY, n int NOT NULL)');
      await holder.query('INSERT INTO held VALUES (1, 0)');
    });
    after(async () => {
      await holder.end();
      await observer.end();
      await t.close();
    });

    it('a create held up by a table lock answers 503 within the limit; its connection is cut and its thread killed; then it serves again', async () => {
      const timeoutsBefore = await metric(t, 'checkout_db_statement_timeouts_total');
      await holder.query('LOCK TABLES transactions WRITE');
      let answer: Answer;
      let thread: number;
      try {
        const answered = create(t, s);
        thread = await waitingThread(observer, database);
        answer = await answered;
        // Killed at once, not when its 3 s lock wait would have run out.
        await eventually(
          async () => ((await threadAlive(observer, thread)) ? undefined : true),
          1000,
          "the held statement's thread to be killed",
        );
      } finally {
        await holder.query('UNLOCK TABLES');
      }
      assert.ok(
        isUnavailable(answer),
        `503 with Retry-After, got ${answer.status} ${JSON.stringify(answer.body)}`,
      );
      assert.ok(answer.ms < LIMIT_MS + 1500, `answered in ${answer.ms} ms`);
      assert.ok((await metric(t, 'checkout_db_statement_timeouts_total')) > timeoutsBefore);

      const again = await eventually(
        async () => {
          const res = await create(t, s);
          return res.status === 201 ? res : undefined;
        },
        5000,
        'creates to succeed again',
      );
      assert.equal(again.status, 201);
      await t.http().get('/health/ready').expect(200);
    });

    it('a statement outside a unit of work that runs past the limit fails as a lost connection, and its connection is not reused', async () => {
      const dataSource = t.app.get(DataSource);
      const started = Date.now();
      const failure = await dataSource.query('SELECT SLEEP(5)').then(
        () => null,
        (error: { driverError?: { code?: string } }) => error,
      );
      assert.equal(failure?.driverError?.code, 'DB_STATEMENT_TIMEOUT');
      assert.ok(Date.now() - started < LIMIT_MS + 500, `failed after ${Date.now() - started} ms`);
      // Every connection of the pool still answers at once: the cut one was not handed out again.
      await eventually(
        async () => ((await t.http().get('/health/ready')).status === 200 ? true : undefined),
        3000,
        'readiness',
      );
      const answers = await Promise.all(Array.from({ length: 8 }, () => dataSource.query('SELECT 1 AS one')));
      assert.equal(answers.length, 8);
    });

    it('a unit of work whose lock waits are retried gives up at its whole-run limit, not after six lock waits', async () => {
      // The unit's statement waits on a row lock: each run fails after the 3 s lock wait... but the
      // whole run has 1 s. Held for longer than that by a transaction of another session.
      await holder.query('START TRANSACTION');
      await holder.query('SELECT * FROM held WHERE id = 1 FOR UPDATE');
      const uow = t.app.get(UnitOfWork);
      const started = Date.now();
      let failure: unknown;
      try {
        await uow.run((manager) => manager.query('UPDATE held SET n = n + 1 WHERE id = 1'));
      } catch (error) {
        failure = error;
      } finally {
        await holder.query('ROLLBACK');
      }
      const ms = Date.now() - started;
      assert.equal((failure as { status?: number } | undefined)?.status, 503, String(failure));
      assert.ok(ms < LIMIT_MS + 500, `gave up after ${ms} ms`);
      const [rows] = await observer.query('SELECT n FROM held WHERE id = 1');
      assert.deepEqual(rows, [{ n: 0 }], 'nothing written');
      // And the unit runs through once the lock is gone (the node is back in use by then).
      await eventually(
        async () =>
          uow
            .run((manager) => manager.query('UPDATE held SET n = n + 1 WHERE id = 1'))
            .then(
              () => true,
              () => undefined,
            ),
        3000,
        'the unit to run',
      );
    });

    it("lifts the limit on the migrations' connection only (DDL may rightly run long)", async () => {
      const dataSource = t.app.get(DataSource);
      await eventually(
        async () => ((await t.http().get('/health/ready')).status === 200 ? true : undefined),
        3000,
        'readiness',
      );
      const runner = dataSource.createQueryRunner('master');
      try {
        const rows = (await withoutStatementLimit(runner, () =>
          runner.query('SELECT SLEEP(1.5) AS slept'),
        )) as { slept: number | string }[];
        assert.equal(Number(rows[0].slept), 0, 'slept its full 1.5 s');
      } finally {
        await runner.release();
      }
      const failure = await dataSource.query('SELECT SLEEP(1.5)').then(
        () => null,
        (error: { driverError?: { code?: string } }) => error,
      );
      assert.equal(
        failure?.driverError?.code,
        'DB_STATEMENT_TIMEOUT',
        'every other statement keeps its limit',
      );
    });
  });

  describe('a hung database node: sockets open, nothing answers (contract §17)', () => {
    let db: TestDatabase;
    let h1: TcpProxy;
    let h2: TcpProxy;
    let t: TestApp | undefined;
    let s: Seeded;
    before(async () => {
      db = await createTestDatabase();
      h1 = await TcpProxy.start(target);
      h2 = await TcpProxy.start(target);
      // The default limits: DB_ACQUIRE_TIMEOUT_MS 5000, DB_QUERY_TIMEOUT_MS 10000.
      t = await startApp({
        db,
        env: { DATABASE_URL: urlThrough(db, [`127.0.0.1:${h1.port}`, `127.0.0.1:${h2.port}`]) },
      });
      s = await seedBasics(t);
    });
    after(async () => {
      await t?.close();
      await h1.down();
      await h2.down();
      await db.drop();
    });

    it('fails over from the frozen first host under load, every request answered within 10 s, and goes back after it thaws', async () => {
      assert.equal((await create(t!, s)).status, 201);
      assert.ok(h1.accepted > 0 && h2.accepted === 0, 'the first host is the one in use');
      const load = steadyLoad(t!, s);
      await sleep(500);
      h1.freeze();
      const frozenAt = Date.now();
      // Longer than the statement limit: a request left waiting on h1 would show.
      await sleep(12_000);
      assert.ok(h2.accepted > 0, 'the second host took over');
      await t!.http().get('/health/ready').expect(200);
      const during = await load.stop();
      const afterFreeze = during.slice(-20);
      assert.ok(
        afterFreeze.every((a) => a.status === 201),
        `creates succeed on the second host: ${afterFreeze.map((a) => a.status).join(' ')}`,
      );

      const load2 = steadyLoad(t!, s, 2);
      h1.thaw();
      const health = t!.app.get(DatabaseHealth);
      await eventually(
        async () => ((await health.check()).pool?.active === `127.0.0.1:${h1.port}` ? true : undefined),
        10_000,
        'the first host to be in use again',
      );
      await sleep(500);
      const afterThaw = await load2.stop();
      assertAnsweredInTime([...during, ...afterThaw], ANSWER_WITHIN_MS, frozenAt);
      assert.equal(afterThaw[afterThaw.length - 1].status, 201, 'and serves after the thaw');
      assert.ok(Date.now() - frozenAt > 12_000);
    });

    it('shuts down promptly while a statement waits on the frozen node in use', async () => {
      const app = t!;
      t = undefined;
      await create(app, s);
      h1.freeze();
      const waiting = app.app
        .get(DataSource)
        .query('SELECT 1')
        .then(
          () => 'answered',
          () => 'failed',
        );
      await sleep(100);
      const started = Date.now();
      await app.close();
      const ms = Date.now() - started;
      h1.thaw();
      assert.equal(await waiting, 'failed');
      assert.ok(ms < 5000, `closed in ${ms} ms`);
    });
  });

  describe('the only database hung (contract §17)', () => {
    let db: TestDatabase;
    let node: TcpProxy;
    let t: TestApp;
    let s: Seeded;
    before(async () => {
      db = await createTestDatabase();
      node = await TcpProxy.start(target);
      t = await startApp({
        db,
        env: { DATABASE_URL: urlThrough(db, [`127.0.0.1:${node.port}`]) },
      });
      s = await seedBasics(t);
    });
    after(async () => {
      await t.close();
      await node.down();
      await db.drop();
    });

    it('answers 503 within 10 s while it is frozen, readiness 503, and serves again once it thaws', async () => {
      const load = steadyLoad(t, s);
      await sleep(300);
      node.freeze();
      await sleep(4000);
      assert.equal((await t.http().get('/health/ready')).status, 503);
      await t.http().get('/health').expect(200);
      await sleep(7000);
      node.thaw();
      await eventually(
        async () => ((await t.http().get('/health/ready')).status === 200 ? true : undefined),
        10_000,
        'readiness to recover',
      );
      await sleep(500);
      const answers = await load.stop();
      assertAnsweredInTime(answers);
      assert.ok(answers.some(isUnavailable), 'requests met the frozen node');
      assert.equal(answers[answers.length - 1].status, 201, 'and succeed again after it');
    });
  });
}
