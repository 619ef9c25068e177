import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, dataSourceOf, SIGNING_KEY } from './event-helpers';

interface FeedPage {
  results: {
    event_id: string;
    event: string;
    sequence: number;
    session_id: string;
    created_at: string;
    payload: Record<string, unknown>;
  }[];
  next: string;
}

const FEED = '/b/checkout/v1/events/';

/** contract §18: the merchant events feed — every event once, oldest first, from a stable cursor. */
describe('GET /b/checkout/v1/events/', () => {
  let a: TestApp;
  let b: TestApp | null = null;
  let s: Seeded;
  before(async () => {
    a = await startApp({ env: { WEBHOOK_SIGNING_KEY: SIGNING_KEY } });
    s = await seedBasics(a);
  });
  after(async () => {
    await b?.close();
    await a.close();
  });

  const read = async (app: TestApp, query: Record<string, string | number> = {}): Promise<FeedPage> => {
    const res = await app.http().get(FEED).query(query).set('Authorization', s.apiKey);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as FeedPage;
  };
  const cancel = (sessionId: string) =>
    a
      .http()
      .post('/b/pbl/v2/operation/')
      .set('Authorization', s.apiKey)
      .send({ operation: 'cancel', session_id: sessionId })
      .expect(200);

  it('lists the events oldest first with their signed webhook bodies, then waits at the same cursor', async () => {
    const start = await read(a);
    const sessionId = await createTransaction(a, s);
    await cancel(sessionId);
    const page = await read(a, { after: start.next });
    assert.deepEqual(
      page.results.map((e) => [e.session_id, e.event, e.sequence]),
      [
        [sessionId, 'created', 1],
        [sessionId, 'canceled', 2],
      ],
    );
    const [created] = page.results;
    assert.match(created.event_id, /^[0-9a-f-]{36}$/);
    assert.equal(created.payload.session_id, sessionId);
    assert.equal(created.payload.state, 'created');
    assert.match(String(created.payload.signature), /^[0-9a-f]{64}$/);
    assert.ok(!Number.isNaN(Date.parse(created.created_at)));

    const idle = await read(a, { after: page.next });
    assert.deepEqual(idle, { results: [], next: page.next }, 'nothing newer: the same cursor back');
  });

  it('pages by limit and filters by session_id', async () => {
    const start = await read(a);
    const one = await createTransaction(a, s);
    const two = await createTransaction(a, s);
    await cancel(one);
    const seen: string[] = [];
    let cursor = start.next;
    for (;;) {
      const page = await read(a, { after: cursor, limit: 1 });
      if (page.results.length === 0) break;
      assert.equal(page.results.length, 1);
      seen.push(`${page.results[0].session_id}:${page.results[0].event}`);
      cursor = page.next;
    }
    assert.deepEqual(seen, [`${one}:created`, `${two}:created`, `${one}:canceled`]);
    const only = await read(a, { after: start.next, session_id: one });
    assert.deepEqual(
      only.results.map((e) => e.event),
      ['created', 'canceled'],
    );
  });

  it('never misses or repeats an event while two replicas record events and the reader alternates', async () => {
    b = await startApp({ env: { WEBHOOK_SIGNING_KEY: SIGNING_KEY }, db: a.db }); // started last: see api-key-cache
    const replicas = [a, b];
    const start = await read(a);
    let writing = true;
    const writers = replicas.map(async (app) => {
      let made = 0;
      while (writing || made < 5) {
        await createTransaction(app, s);
        made++;
      }
    });
    const seen: string[] = [];
    let cursor = start.next;
    let reads = 0;
    const drain = async () => {
      const page = await read(replicas[reads++ % 2], { after: cursor, limit: 7 });
      seen.push(...page.results.map((e) => e.event_id));
      cursor = page.next;
      return page.results.length;
    };
    const until = Date.now() + 1500;
    while (Date.now() < until) await drain();
    writing = false;
    await Promise.all(writers);
    while ((await drain()) > 0);

    assert.equal(new Set(seen).size, seen.length, 'no event twice');
    const written = await dataSourceOf(a).query<{ event_id: string }[]>(
      'SELECT event_id FROM events WHERE feed_position > (SELECT MIN(feed_position) FROM events WHERE event_id = ?) - 1',
      [seen[0]],
    );
    assert.ok(seen.length >= 10, `read ${seen.length} events`);
    assert.deepEqual(
      new Set(seen),
      new Set(written.map((r) => r.event_id)),
      'every event written, none missed',
    );
  });

  it('refuses a bad cursor, limit or session_id, and credentials other than an API key', async () => {
    const bad = async (query: Record<string, string>, field: string, message: RegExp) => {
      const res = await a.http().get(FEED).query(query).set('Authorization', s.apiKey).expect(400);
      assert.deepEqual(Object.keys(res.body as object), [field], JSON.stringify(res.body));
      assert.match((res.body as Record<string, string[]>)[field][0], message);
    };
    await bad({ after: 'garbage!' }, 'after', /^Invalid cursor/);
    await bad({ after: Buffer.from('feed.-1').toString('base64url') }, 'after', /^Invalid cursor/);
    await bad({ after: Buffer.from('12').toString('base64url') }, 'after', /^Invalid cursor/);
    await bad({ limit: '0' }, 'limit', /greater than or equal to 1/);
    await bad({ limit: '501' }, 'limit', /less than or equal to 500/);
    await bad({ session_id: 'x'.repeat(41) }, 'session_id', /no more than 40 characters/);
    await a.http().get(FEED).expect(401);
    await a.http().get(FEED).set('Authorization', adminAuth()).expect(401);
  });
});
