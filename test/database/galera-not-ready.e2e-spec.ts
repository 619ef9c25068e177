import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { DatabaseHealth } from '../../src/database/database-health';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { eventually } from '../events/event-helpers';
import { CREATE_PATH } from '../factories/transaction-states';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTestDatabase, TestDatabase, testDbKind } from '../setup/test-database';
import { GaleraNodeProxy } from './galera-node-proxy';

/** `DATABASE_URL` of the test database, reached through the given `host:port`s in order. */
function urlThrough(db: TestDatabase, hosts: string[]): string {
  const url = new URL(db.env.DATABASE_URL);
  return `mysql://${url.username}${url.password ? `:${url.password}` : ''}@${hosts.join(',')}${url.pathname}`;
}

interface Answer {
  what: string;
  status: number;
  ms: number;
}

/** Creates, then retrieves what it created (a read outside any unit), on 3 loops until stopped. */
function steadyLoad(t: TestApp, s: Seeded): { stop: () => Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      let started = Date.now();
      const created = await t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(transactionBody());
      answers.push({ what: 'create', status: created.status, ms: Date.now() - started });
      if (created.status === 201) {
        started = Date.now();
        const read = await t.http().get(`${CREATE_PATH}${String(created.body.session_id)}/`);
        answers.push({ what: 'retrieve', status: read.status, ms: Date.now() - started });
      }
      await sleep(20);
    }
  };
  const loops = Promise.all([loop(), loop(), loop()]);
  return {
    stop: async () => {
      running = false;
      await loops;
      return answers;
    },
  };
}

/** The answers that are not the normal one (201 create, 200 retrieve) within `limitMs`, counted. */
function unexpected(answers: Answer[], limitMs: number): string {
  const bad = new Map<string, number>();
  for (const a of answers) {
    const normal = a.status === (a.what === 'create' ? 201 : 200);
    if (normal && a.ms <= limitMs) continue;
    const key = `${a.what} ${a.status}${normal ? ` after ${a.ms} ms` : ''}`;
    bad.set(key, (bad.get(key) ?? 0) + 1);
  }
  return [...bad].map(([key, n]) => `${n}× ${key}`).join(', ');
}

/**
 * contract §17: a Galera node that answers 1047 "WSREP has not yet prepared node for application
 * use" (joining, rejoining, outside the primary component) is a node lost for the moment, not a
 * conflict: the pool sets it aside and the statement or unit runs on the next host of
 * DATABASE_URL, or on this one once it is ready again — the replica's callers get their normal
 * answers, never a 503 for a node that came back within the acquire timeout. The node is a
 * protocol-aware proxy in front of the test's MariaDB (galera-node-proxy.ts).
 */
if (testDbKind() === 'mysql') {
  const server = new URL(process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test');
  const target = { host: server.hostname, port: Number(server.port || 3306) };

  describe('a Galera node not ready (1047), the only host of DATABASE_URL', () => {
    let db: TestDatabase;
    let node: GaleraNodeProxy;
    let t: TestApp;
    let s: Seeded;
    before(async () => {
      db = await createTestDatabase();
      node = await GaleraNodeProxy.start(target);
      t = await startApp({ db, env: { DATABASE_URL: urlThrough(db, [`127.0.0.1:${node.port}`]) } });
      s = await seedBasics(t);
    });
    after(async () => {
      await t.close();
      await node.stop();
      await db.drop();
    });

    it('requests that meet it for 1.5 s wait for it and get their normal answers (no 503)', async () => {
      const load = steadyLoad(t, s);
      await sleep(500);
      node.mode = 'not-ready';
      await sleep(1500);
      node.mode = 'ready';
      await sleep(1000);
      const answers = await load.stop();
      assert.ok(node.refused.length > 0, 'the load met the node while it was not ready');
      assert.ok(
        answers.filter((a) => a.what === 'create').length > 10,
        `the load ran on: ${answers.length} answers`,
      );
      assert.equal(unexpected(answers, 5000), '', 'every answer the normal one, within 5 s');
      await t.http().get('/health/ready').expect(200);
    });
  });

  describe('a Galera node not ready (1047), the first host of a DATABASE_URL host list', () => {
    let db: TestDatabase;
    let node: GaleraNodeProxy;
    let t: TestApp;
    let s: Seeded;
    let uow: UnitOfWork;
    let ds: DataSource;
    before(async () => {
      db = await createTestDatabase();
      node = await GaleraNodeProxy.start(target);
      const direct = `${target.host}:${target.port}`;
      t = await startApp({
        db,
        env: { DATABASE_URL: urlThrough(db, [`127.0.0.1:${node.port}`, direct]) },
      });
      s = await seedBasics(t);
      uow = t.app.get(UnitOfWork);
      ds = t.app.get(DataSource);
      await ds.query('CREATE TABLE galera_probe (id int PRIMARY KEY, note varchar(20))');
    });
    after(async () => {
      await t.close();
      await node.stop();
      await db.drop();
    });

    /** The node in use by the pool, `host:port`. */
    const active = () =>
      t.app
        .get(DatabaseHealth)
        .check()
        .then((r) => r.pool?.active);
    /** Waits until the monitor has brought the proxy node back into use. */
    const backOnNode = async () => {
      node.mode = 'ready';
      await eventually(
        async () => ((await active()) === `127.0.0.1:${node.port}` ? true : undefined),
        5000,
        'the first host back in use',
      );
    };

    it('fails over to the next host at once: every request answered normally; back to the first once it is ready', async () => {
      assert.equal(await active(), `127.0.0.1:${node.port}`, 'the first host is in use');
      const load = steadyLoad(t, s);
      await sleep(500);
      node.mode = 'not-ready';
      await sleep(1500);
      const refusedWhileDown = node.refused.length;
      await backOnNode();
      const forwarded = node.forwarded;
      await sleep(500);
      const answers = await load.stop();
      assert.ok(refusedWhileDown > 0, 'the load met the node while it was not ready');
      assert.equal(unexpected(answers, 3000), '', 'every answer the normal one, within 3 s');
      assert.ok(node.forwarded > forwarded, 'statements go through the first host again');
    });

    it('a unit whose COMMIT the node refuses (not committed) runs again whole on another node and commits once', async () => {
      await backOnNode();
      node.commitsTouching = /galera_probe/;
      node.mode = 'refuse-commit';
      let runs = 0;
      const started = Date.now();
      try {
        await uow.run(async (manager) => {
          runs++;
          await manager.query(`INSERT INTO galera_probe (id, note) VALUES (1, ?)`, [`run ${runs}`]);
        });
      } finally {
        node.mode = 'ready';
      }
      assert.equal(runs, 2);
      assert.deepEqual(node.refused.slice(-1), ['COMMIT']);
      assert.deepEqual(await ds.query('SELECT id, note FROM galera_probe'), [{ id: 1, note: 'run 2' }]);
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    });

    it('a unit refused in the middle runs again on another node', async () => {
      await backOnNode();
      let runs = 0;
      await uow.run(async (manager) => {
        runs++;
        await manager.query(`SELECT COUNT(*) FROM galera_probe`);
        if (runs === 1) node.mode = 'not-ready'; // the node drops out while the unit runs
        await manager.query(`INSERT INTO galera_probe (id, note) VALUES (2, 'middle')`);
      });
      node.mode = 'ready';
      assert.equal(runs, 2, 'the unit ran again');
      assert.deepEqual(await ds.query('SELECT note FROM galera_probe WHERE id = 2'), [{ note: 'middle' }]);
    });

    it('a statement outside a unit that the node refuses runs on the next node: the caller gets its answer', async () => {
      await backOnNode();
      node.mode = 'not-ready';
      try {
        const refusedBefore = node.refused.length;
        const rows: unknown = await ds.query(`SELECT COUNT(*) AS n FROM galera_probe`);
        assert.deepEqual(rows, [{ n: '2' }]);
        assert.ok(node.refused.includes('SELECT', refusedBefore), 'it was refused first');
        // A write too: the node refused it, so it did not run; it runs once, on the next node.
        await ds.query(`INSERT INTO galera_probe (id, note) VALUES (3, 'outside')`);
        assert.deepEqual(await ds.query('SELECT COUNT(*) AS n FROM galera_probe WHERE id = 3'), [{ n: '1' }]);
      } finally {
        node.mode = 'ready';
      }
    });
  });
}
