import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { RunningService } from '../ops/service-process';
import {
  call,
  dropDatabase,
  freshDatabase,
  inParallel,
  rows,
  seedThrough,
  startReplicas,
  stopReplica,
  summarize,
  TX_PATH,
  txBody,
} from './cluster-helpers';

/**
 * contract §17 on a 3-node Galera cluster, two replicas on different nodes (A on node 0, B on node 1):
 * concurrent writes never answer 5xx, unique rules hold across nodes, and what one replica wrote
 * reads back at once through the other.
 */
describe('writes through two replicas on two Galera nodes', () => {
  let db: string;
  let a: RunningService;
  let b: RunningService;
  let auth: string;
  before(async () => {
    db = await freshDatabase();
    [a, b] = await startReplicas(db, [[0]], [[1]]);
    auth = await seedThrough(a);
  });
  after(async () => {
    await Promise.all([stopReplica(a), stopReplica(b)]);
    await dropDatabase(db);
  });

  const create = (replica: RunningService, overrides: Record<string, unknown> = {}, headers = {}) =>
    call('POST', `${replica.url}${TX_PATH}`, {
      body: txBody(overrides),
      headers: { Authorization: auth, ...headers },
    });

  it('answers 600 concurrent creates through both replicas with 201, none ≥ 500', async () => {
    const answers = await inParallel(600, 30, (i) => create(i % 2 ? a : b, { order_no: `bulk-${i}` }));
    assert.equal(
      summarize(answers, (x) => x.status === 201),
      '',
    );
    const [{ n }] = await rows<{ n: number }>(
      `SELECT COUNT(*) AS n FROM \`${db}\`.transactions WHERE order_no LIKE 'bulk-%'`,
    );
    assert.equal(Number(n), 600);
  });

  it('lets exactly one of two creates with the same order_no through, the other a 400 (50 pairs across nodes)', async () => {
    const results = await inParallel(50, 10, async (i) => {
      const orderNo = `pair-${i}-${randomBytes(3).toString('hex')}`;
      return Promise.all([create(a, { order_no: orderNo }), create(b, { order_no: orderNo })]);
    });
    const unexpected = results.filter(([x, y]) => {
      const statuses = [x.status, y.status].sort();
      const refused = x.status === 400 ? x : y;
      return (
        statuses[0] !== 201 ||
        statuses[1] !== 400 ||
        JSON.stringify(refused.body) !==
          '{"order_no":["A live transaction with this order_no already exists."]}'
      );
    });
    assert.deepEqual(
      unexpected.map(([x, y]) => [x.status, x.body, y.status, y.body]),
      [],
      'each pair answered 201 + 400',
    );
  });

  it('lets one Idempotency-Key create one transaction when it is sent through both replicas at once', async () => {
    const results = await inParallel(50, 10, async (i) => {
      const key = `idem-${i}-${randomBytes(4).toString('hex')}`;
      const body = { order_no: key };
      const answers = await Promise.all([
        create(a, body, { 'Idempotency-Key': key }),
        create(b, body, { 'Idempotency-Key': key }),
      ]);
      return { key, answers };
    });
    for (const { key, answers } of results) {
      const statuses = answers.map((x) => x.status).sort();
      assert.ok(
        (statuses[0] === 201 && statuses[1] === 201) || (statuses[0] === 201 && statuses[1] === 409),
        `${key}: ${summarize(answers, () => false)}`,
      );
      if (statuses[1] === 201) {
        // the second answer is the first one replayed
        assert.equal(answers.filter((x) => x.headers.get('idempotent-replayed') === 'true').length, 1, key);
        assert.equal(answers[0].body.session_id, answers[1].body.session_id, key);
      } else {
        const conflict = answers.find((x) => x.status === 409)!;
        assert.deepEqual(conflict.body, {
          detail: 'A request with this Idempotency-Key is still being processed; retry later.',
        });
      }
    }
    const counts = await rows<{ order_no: string; n: number }>(
      `SELECT order_no, COUNT(*) AS n FROM \`${db}\`.transactions WHERE order_no LIKE 'idem-%' GROUP BY order_no`,
    );
    assert.equal(counts.length, 50, 'one transaction per key');
    assert.deepEqual(
      counts.filter((c) => Number(c.n) !== 1),
      [],
    );
  });

  it('reads a transaction created through one replica back through the other at once (2000 times)', async () => {
    const misses = await inParallel(2000, 20, async (i) => {
      const [writer, reader] = i % 2 ? [a, b] : [b, a];
      const created = await create(writer);
      if (created.status !== 201) return `create ${created.status} ${JSON.stringify(created.body)}`;
      const read = await call('GET', `${reader.url}${TX_PATH}${String(created.body.session_id)}/`);
      return read.status === 200 ? null : `read ${read.status} ${JSON.stringify(read.body)}`;
    });
    assert.deepEqual(
      misses.filter((m) => m !== null),
      [],
    );
  });
  it('gives an events-feed reader alternating between the replicas every event once while both write', async () => {
    const feed = async (replica: RunningService, after: string) => {
      const answer = await call('GET', `${replica.url}/b/checkout/v1/events/?limit=25&after=${after}`, {
        headers: { Authorization: auth },
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body as { results: { event_id: string }[]; next: string };
    };
    let cursor = (await feed(a, Buffer.from('feed.0').toString('base64url'))).next;
    // Start from the end of what is there now.
    for (let page = await feed(a, cursor); page.results.length > 0; page = await feed(a, cursor))
      cursor = page.next;
    const first = cursor;
    let writing = true;
    const writers = [a, b].map(async (replica) => {
      while (writing) {
        const made = await Promise.all([create(replica), create(replica), create(replica)]);
        assert.deepEqual(
          made.map((m) => m.status),
          [201, 201, 201],
        );
      }
    });
    const seen: string[] = [];
    let reads = 0;
    const drain = async () => {
      const page = await feed(reads++ % 2 ? b : a, cursor);
      seen.push(...page.results.map((e) => e.event_id));
      cursor = page.next;
      return page.results.length;
    };
    const until = Date.now() + 4000;
    while (Date.now() < until) await drain();
    writing = false;
    await Promise.all(writers);
    while ((await drain()) > 0);
    const position = BigInt(Buffer.from(first, 'base64url').toString('utf8').slice('feed.'.length));
    const written = await rows<{ event_id: string }>(
      `SELECT event_id FROM \`${db}\`.events WHERE feed_position > ${position}`,
    );
    assert.equal(new Set(seen).size, seen.length, 'no event twice');
    assert.ok(seen.length >= 20, `read ${seen.length} events`);
    assert.deepEqual(new Set(seen), new Set(written.map((r) => r.event_id)), 'none missed');
    const [{ unplaced }] = await rows<{ unplaced: number }>(
      `SELECT COUNT(*) AS unplaced FROM \`${db}\`.events WHERE feed_position IS NULL`,
    );
    assert.equal(Number(unplaced), 0);
  });
});
