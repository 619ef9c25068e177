// cluster-tests: takes a node down (no other cluster file runs beside it: run-cluster-tests.mjs)
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningService } from '../ops/service-process';
import {
  type Answer,
  answeredWithin,
  call,
  cluster,
  dropDatabase,
  freshDatabase,
  rows,
  seedThrough,
  startReplica,
  startReplicas,
  steadyLoad,
  stopReplica,
  succeeded,
  summarize,
  TX_PATH,
  txBody,
  waitFor,
  warnings,
} from './cluster-helpers';

/** contract §17 for a node killed: success, or 503 with its body and Retry-After — within 5 s. */
const acceptable = answeredWithin(5500);

describe('start-up on a Galera cluster', () => {
  it('two replicas starting at once on a fresh database on two nodes both start and migrate once (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const db = await freshDatabase();
      const replicas: RunningService[] = [];
      try {
        const started = await Promise.allSettled([startReplica([0], db), startReplica([1], db)]);
        for (const r of started) if (r.status === 'fulfilled') replicas.push(r.value);
        assert.deepEqual(
          started.filter((r) => r.status === 'rejected').map((r) => String(r.reason)),
          [],
          'both replicas started',
        );
        for (const replica of replicas) {
          assert.equal((await call('GET', `${replica.url}/health/ready`)).status, 200);
          const output = replica.output.stdout + replica.output.stderr;
          assert.doesNotMatch(output, /already exists|Duplicate column|failed to start/i);
        }
        const names = await rows<{ name: string; n: number }>(
          `SELECT name, COUNT(*) AS n FROM \`${db}\`.migrations GROUP BY name`,
        );
        assert.ok(names.length > 0);
        assert.deepEqual(
          names.filter((m) => Number(m.n) !== 1),
          [],
          'each migration recorded once',
        );
        assert.deepEqual(await rows(`SELECT * FROM \`${db}\`.schema_lock`), [], 'the lock is released');
      } finally {
        await Promise.all(replicas.map(stopReplica));
        await dropDatabase(db);
      }
    }
  });
});

describe('a Galera node killed under load', () => {
  let db: string;
  let a: RunningService | undefined;
  let b: RunningService | undefined;
  after(async () => {
    await Promise.all([stopReplica(a), stopReplica(b)]);
    if (db) await dropDatabase(db);
  });

  it('leaves the replica on another node unaffected; the one on the dead node answers 503 within 5 s and recovers when the node rejoins', async (t) => {
    db = await freshDatabase();
    [a, b] = await startReplicas(
      db,
      [[0], { DB_ACQUIRE_TIMEOUT_MS: '3000' }],
      // B keeps the default acquire timeout (5 s): its commits wait while the cluster evicts the
      // dead node (EVS_TIMEOUTS: 2.5–3 s here), longer than 3 s on a slow machine.
      [[1]],
    );
    const auth = await seedThrough(b);
    const onA = steadyLoad(a, auth);
    const onB = steadyLoad(b, auth);
    await sleep(1500);

    const killedAt = Date.now();
    await cluster.kill(0);
    await sleep(3000);
    const ready = await call('GET', `${a.url}/health/ready`);
    assert.equal(ready.status, 503, 'readiness of the replica whose node is gone');
    assert.equal((await call('GET', `${a.url}/health`)).status, 200, 'liveness stays about the process');

    const rejoinStartedAt = Date.now();
    await cluster.restart(0);
    const rejoinedAt = Date.now();
    const recovery = await waitFor('replica A to create again', 20_000, async () => {
      const res = await call('POST', `${a!.url}${TX_PATH}`, {
        body: txBody(),
        headers: { Authorization: auth },
      });
      return res.status === 201;
    });
    await sleep(1000);
    const [answersA, answersB] = await Promise.all([onA.stop(), onB.stop()]);
    t.diagnostic(
      `replica B: ${answersB.length} answers, the slowest in ${Math.max(...answersB.map((x) => x.ms))} ms (limit 5500)`,
    );

    // While node 0 rejoins, node 1 may answer 1047 (not ready) for a moment: B's requests wait for
    // it instead of answering 503 (contract §17: a node not ready is a node lost, not a conflict).
    const rejoin = answersB.filter((x) => x.at >= rejoinStartedAt && x.at - x.ms <= rejoinedAt + 2000);
    t.diagnostic(
      `replica B during the rejoin: ${rejoin.length} answers, ${rejoin.filter((x) => x.status === 503).length}× 503`,
    );
    const membership = [0, 1, 2].map((n) => cluster.membershipChanges(n, killedAt)).join('\n');
    assert.equal(
      answersB.filter((x) => x.status === 503).length,
      0,
      `replica B, whose node stayed up: 0× 503, while node 0 died and while it rejoined\n${warnings(b)}\n${membership}`,
    );
    assert.equal(
      summarize(answersB, (x) => succeeded(x) && x.ms <= 5500),
      '',
      `replica B: no error, no hang\n${warnings(b)}\n${membership}`,
    );
    assert.equal(summarize(answersA, acceptable), '', 'replica A: success or 503 within 5 s, never 500');
    assert.ok(
      answersA.some((x) => x.status === 503),
      'replica A met the outage',
    );
    assert.ok(succeeded(answersA[answersA.length - 1]), 'and answers normally again');
    assert.ok(recovery < 20_000);
  });

  it('fails a replica with a host list over to another node within 10 s, and keeps working when the node returns', async () => {
    await Promise.all([stopReplica(a), stopReplica(b)]);
    b = undefined;
    a = await startReplica([0, 1, 2], db, { DB_ACQUIRE_TIMEOUT_MS: '3000' });
    const auth = `Api-Key ${await newKey(a)}`;
    const load = steadyLoad(a, auth);
    await sleep(1000);

    await cluster.kill(0);
    const killedAt = Date.now();
    await waitFor('creates through the next node', 10_000, async () => {
      const res = await call('POST', `${a!.url}${TX_PATH}`, {
        body: txBody(),
        headers: { Authorization: auth },
      });
      return res.status === 201;
    });
    const failover = Date.now() - killedAt;
    assert.ok(failover < 10_000, `failed over in ${failover} ms`);
    assert.equal((await call('GET', `${a.url}/health/ready`)).status, 200);

    await cluster.restart(0);
    await sleep(3000); // the monitor brings node 0 back into use
    const answers = await load.stop();
    assert.equal(summarize(answers, acceptable), '', 'success or 503 within 5 s, never 500');
    const after = await call('POST', `${a.url}${TX_PATH}`, {
      body: txBody(),
      headers: { Authorization: auth },
    });
    assert.equal(after.status, 201);
  });
});

describe('a Galera node that refuses statements for a moment (1047, as while it is not ready)', () => {
  let db: string;
  let only: RunningService | undefined;
  let list: RunningService | undefined;
  after(async () => {
    await cluster.query(1, 'SET GLOBAL wsrep_reject_queries = NONE').catch(() => undefined);
    await Promise.all([stopReplica(only), stopReplica(list)]);
    if (db) await dropDatabase(db);
  });

  it('a replica with a host list fails over at once, one on that node alone waits for it: no 503 on either', async (t) => {
    db = await freshDatabase();
    // `only` on node 1 alone; `list` on node 1, then node 2.
    [only, list] = await startReplicas(db, [[1]], [[1, 2]]);
    const auth = await seedThrough(only);
    const onOnly = steadyLoad(only, auth);
    const onList = steadyLoad(list, auth);
    await sleep(1500);

    // What a node shows while it joins, or an operator drains it: Synced, but every statement
    // other than SET/SHOW refused with 1047 "WSREP has not yet prepared node for application use".
    const refusedAt = Date.now();
    await cluster.query(1, 'SET GLOBAL wsrep_reject_queries = ALL');
    await sleep(2000);
    await cluster.query(1, 'SET GLOBAL wsrep_reject_queries = NONE');
    const acceptedAt = Date.now();
    await sleep(2000);
    const [answersOnly, answersList] = await Promise.all([onOnly.stop(), onList.stop()]);
    const during = (answers: Answer[]) =>
      answers.filter((x) => x.at >= refusedAt && x.at - x.ms <= acceptedAt).length;
    t.diagnostic(
      `node 1 refused statements for ${acceptedAt - refusedAt} ms; answers met it: ${during(answersOnly)} (node 1 alone, slowest ${Math.max(...answersOnly.map((x) => x.ms))} ms), ${during(answersList)} (host list, slowest ${Math.max(...answersList.map((x) => x.ms))} ms)`,
    );

    assert.ok(during(answersOnly) > 0 && during(answersList) > 0, 'both replicas were under load meanwhile');
    assert.equal(
      summarize(answersList, (x) => succeeded(x) && x.ms <= 3000),
      '',
      `the replica with a host list: every answer normal, within 3 s\n${warnings(list)}`,
    );
    assert.match(
      list.output.stdout,
      // by a statement refused, or by the monitor's probe, whichever came first
      /Database 127\.0\.0\.1:4307 set aside \(.*(WSREP has not yet prepared node|rejects queries).*; using 127\.0\.0\.1:4308/,
      'the replica with a host list moved to node 2',
    );
    assert.match(
      list.output.stdout,
      /Database 127\.0\.0\.1:4307 answers again/,
      'back on node 1 once it takes statements',
    );
    assert.equal(
      summarize(answersOnly, (x) => succeeded(x) && x.ms <= 5500),
      '',
      `the replica on node 1 alone: every answer normal (it waited for the node), within 5.5 s\n${warnings(only)}`,
    );
  });
});

/** A fresh API key through the admin API of a replica (the database is already seeded). */
async function newKey(replica: RunningService): Promise<string> {
  const res = await call('POST', `${replica.url}/b/checkout/v1/admin/api-keys/`, {
    body: { name: 'failover' },
    headers: { Authorization: `Basic ${Buffer.from('admin:admin-password-1').toString('base64')}` },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return String(res.body.key);
}
