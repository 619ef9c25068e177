import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../events/event-helpers';
import { CREATE_PATH } from '../factories/transaction-states';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { freePort, startApp, TestApp } from '../setup/test-app';
import { createTestDatabase, TestDatabase, testDbKind } from '../setup/test-database';
import { TcpProxy } from '../sinks/tcp-proxy';

/** `DATABASE_URL` of the test database, reached through the given `host:port`s in order. */
function urlThrough(db: TestDatabase, hosts: string[]): string {
  const url = new URL(db.env.DATABASE_URL);
  return `mysql://${url.username}${url.password ? `:${url.password}` : ''}@${hosts.join(',')}${url.pathname}`;
}

interface Answer {
  status: number;
  ms: number;
  body: unknown;
}

/** Creates continuously until stopped; every answer with its time. */
function steadyLoad(t: TestApp, s: Seeded): { stop: () => Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      const res = await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody());
      answers.push({ status: res.status, ms: Date.now() - started, body: res.body });
      await sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return answers;
    },
  };
}

/** Only ever 201, or 503 with the contract §17 body; never slower than the acquire timeout allows. */
function assertNeverBroken(answers: Answer[]): void {
  const broken = answers.filter(
    (a) =>
      !(a.status === 201 || a.status === 503) ||
      (a.status === 503 && JSON.stringify(a.body) !== '{"detail":"Service temporarily unavailable."}'),
  );
  assert.deepEqual(broken, [], 'only 201 or 503 answers');
  const slow = answers.filter((a) => a.ms > 5500);
  assert.deepEqual(slow, [], 'every request answered within 5 s');
}

// A host list and failover need MySQL (the embedded database has no network to lose).
if (testDbKind() === 'mysql') {
  const server = new URL(process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test');
  const target = { host: server.hostname, port: Number(server.port || 3306) };

  describe('database failover through a DATABASE_URL host list (contract §17)', () => {
    let db: TestDatabase;
    let node1: TcpProxy;
    let t: TestApp;
    let s: Seeded;
    before(async () => {
      db = await createTestDatabase();
      node1 = await TcpProxy.start(target);
      const direct = `${target.host}:${target.port}`;
      // node 1: the proxy (the test kills it); node 2: the server itself.
      t = await startApp({
        db,
        env: {
          DATABASE_URL: urlThrough(db, [`127.0.0.1:${node1.port}`, direct]),
          DB_ACQUIRE_TIMEOUT_MS: '2000',
        },
      });
      s = await seedBasics(t);
    });
    after(async () => {
      await t.close();
      await node1.down();
      await db.drop();
    });

    it('uses the first host, fails over within 10 s when it dies, and goes back once it returns', async () => {
      await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody()).expect(201);
      assert.ok(node1.accepted > 0, 'the first host of the list is the one in use');

      const load = steadyLoad(t, s);
      await sleep(300);
      await node1.down();
      const killedAt = Date.now();
      await eventually(
        async () => {
          const res = await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody());
          return res.status === 201 ? true : undefined;
        },
        10_000,
        'creates to succeed on the second host',
      );
      assert.ok(Date.now() - killedAt < 10_000);
      await sleep(1000);
      await t.http().get('/health/ready').expect(200);

      const acceptedBefore = node1.accepted;
      await node1.up();
      await eventually(
        async () => {
          await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody()).expect(201);
          return node1.accepted > acceptedBefore ? true : undefined;
        },
        10_000,
        'new connections to go through the first host again',
      );
      assertNeverBroken(await load.stop());
    });
  });

  describe('losing the only database (contract §17)', () => {
    let db: TestDatabase;
    let node: TcpProxy;
    let t: TestApp;
    let s: Seeded;
    before(async () => {
      db = await createTestDatabase();
      node = await TcpProxy.start(target);
      t = await startApp({
        db,
        env: { DATABASE_URL: urlThrough(db, [`127.0.0.1:${node.port}`]), DB_ACQUIRE_TIMEOUT_MS: '2000' },
      });
      s = await seedBasics(t);
    });
    after(async () => {
      await t.close();
      await node.down();
      await db.drop();
    });

    it('answers 503 within the acquire timeout while no database answers, readiness 503, and recovers by itself', async () => {
      const load = steadyLoad(t, s);
      await sleep(300);
      await node.down();
      await sleep(3000);
      const ready = await t.http().get('/health/ready');
      assert.equal(ready.status, 503);
      await t.http().get('/health').expect(200);
      const during = await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody());
      assert.equal(during.status, 503);
      assert.equal(during.headers['retry-after'], '1');

      await node.up();
      await eventually(
        async () => ((await t.http().get('/health/ready')).status === 200 ? true : undefined),
        10_000,
        'readiness to recover',
      );
      const answers = await load.stop();
      assertNeverBroken(answers);
      assert.ok(
        answers.some((a) => a.status === 503),
        'requests met the outage',
      );
      assert.equal(answers[answers.length - 1].status, 201, 'and succeed again after it');
    });
  });

  describe('a host list whose first host never answers', () => {
    it('starts on the next one', async () => {
      const db = await createTestDatabase();
      const closed = await freePort(); // nothing listens there
      const t = await startApp({
        db,
        env: { DATABASE_URL: urlThrough(db, [`127.0.0.1:${closed}`, `${target.host}:${target.port}`]) },
      });
      try {
        const s = await seedBasics(t);
        await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody()).expect(201);
        await t.http().get('/health/ready').expect(200);
      } finally {
        await t.close();
      }
    });
  });
}
