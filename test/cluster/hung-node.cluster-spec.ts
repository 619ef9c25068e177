// cluster-tests: takes a node down (no other cluster file runs beside it: run-cluster-tests.mjs)
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonLines, type RunningService } from '../ops/service-process';
import {
  answeredWithin,
  call,
  cluster,
  dropDatabase,
  freshDatabase,
  seedThrough,
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
import { nodeUrl } from './galera';

/** contract §17: every request gets an answer within 10 s — 2xx, or 503 with Retry-After. */
const acceptable = answeredWithin(10_000);
const FROZEN_MS = 25_000;

/** The `host:port` of a node, as the service names it in its log. */
const endpointOf = (node: number): string => new URL(nodeUrl([node], 'x')).host;

/** Whether the replica logged a line whose message contains `text`. */
const logged = (replica: RunningService, text: string): boolean =>
  jsonLines(replica.output.stdout).some((line) => typeof line.msg === 'string' && line.msg.includes(text));

describe('a Galera node hung (SIGSTOP) under load', () => {
  let db: string | undefined;
  let a: RunningService | undefined;
  let b: RunningService | undefined;
  let frozen = false;
  after(async () => {
    if (frozen) await cluster.thaw(0).catch(() => undefined);
    await Promise.all([stopReplica(a), stopReplica(b)]);
    if (db) await dropDatabase(db);
  });

  it('the replica using it fails over within 10 s, every request is answered within 10 s, and after SIGCONT the node rejoins and is used again', async (t) => {
    db = await freshDatabase();
    // A: a host list starting with node 0; B on node 1 only. Both with the default limits
    // (DB_ACQUIRE_TIMEOUT_MS 5000, DB_QUERY_TIMEOUT_MS 10000).
    [a, b] = await startReplicas(db, [[0, 1, 2]], [[1]]);
    const auth = await seedThrough(b);
    const onA = steadyLoad(a, auth);
    const onB = steadyLoad(b, auth);
    await sleep(1500);

    cluster.freeze(0);
    frozen = true;
    const frozenAt = Date.now();
    const failover = await waitFor('replica A to create through another node', 10_000, async () => {
      const res = await call('POST', `${a!.url}${TX_PATH}`, {
        body: txBody(),
        headers: { Authorization: auth },
      });
      return res.status === 201;
    });
    t.diagnostic(`replica A created again ${failover} ms after the SIGSTOP`);
    await sleep(Math.max(FROZEN_MS - (Date.now() - frozenAt), 0));
    assert.equal((await call('GET', `${a.url}/health/ready`)).status, 200, 'replica A ready on another node');

    const rejoined = await cluster.thaw(0);
    frozen = false;
    t.diagnostic(`node 0 Synced again ${rejoined} ms after SIGCONT`);
    const back = await waitFor('replica A to use node 0 again', 15_000, () =>
      Promise.resolve(logged(a!, `Database ${endpointOf(0)} answers again`)),
    );
    t.diagnostic(`replica A back on node 0 ${back} ms after it was Synced`);
    await sleep(1500);
    const [answersA, answersB] = await Promise.all([onA.stop(), onB.stop()]);
    const slowest = (answers: { ms: number }[]) => Math.max(...answers.map((x) => x.ms));
    t.diagnostic(
      `replica A: ${answersA.length} answers (${answersA.filter((x) => x.status === 503).length} × 503), the slowest in ${slowest(answersA)} ms; replica B: ${answersB.length}, the slowest in ${slowest(answersB)} ms`,
    );

    assert.equal(summarize(answersA, acceptable), '', `replica A: 2xx or 503 within 10 s\n${warnings(a)}`);
    assert.equal(
      summarize(answersB, (x) => succeeded(x) && x.ms <= 10_000),
      '',
      `replica B (node 1): no error, no hang\n${warnings(b)}`,
    );
    assert.ok(failover < 10_000, `failed over in ${failover} ms`);
    assert.ok(succeeded(answersA[answersA.length - 1]), 'replica A answers normally after the SIGCONT');
    const afterwards = await call('POST', `${a.url}${TX_PATH}`, {
      body: txBody(),
      headers: { Authorization: auth },
    });
    assert.equal(afterwards.status, 201);
    assert.ok(logged(a, `Database ${endpointOf(0)} set aside`), 'replica A logged the node it set aside');
  });
});
