import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isBlockedAddress } from '../../src/common/net/private-address';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import {
  adminEvents,
  createTransaction,
  dataSourceOf,
  eventually,
  FAST_DELIVERY_ENV,
  settled,
} from './event-helpers';

const eventsPath = (sessionId: string) => `/b/checkout/v1/admin/pymt-txn/${sessionId}/events/`;

describe('admin: events and redelivery', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({ env: FAST_DELIVERY_ENV });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  it("lists a transaction's events with their deliveries in the §8 shape", async () => {
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    await settled(t, sessionId);
    const res = await t
      .http()
      .get(eventsPath(sessionId).replace(/\/$/, ''))
      .set('Authorization', adminAuth())
      .expect(200);
    const [event] = res.body as Record<string, unknown>[];
    assert.deepEqual(Object.keys(event).sort(), [
      'created_at',
      'deliveries',
      'event',
      'event_id',
      'sequence',
    ]);
    assert.match(String(event.event_id), /^[0-9a-f-]{36}$/);
    assert.equal(event.event, 'created');
    assert.equal(event.sequence, 1);
    const [delivery] = event.deliveries as Record<string, unknown>[];
    for (const key of [
      'id',
      'channel',
      'target',
      'status',
      'attempts',
      'last_attempt_at',
      'last_status_code',
      'last_error',
    ]) {
      assert.ok(key in delivery, key);
    }
    assert.equal(delivery.channel, 'webhook');
    assert.equal(delivery.target, hook.url);
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.last_status_code, 200);
    assert.equal(delivery.last_error, null);
    assert.ok(!Number.isNaN(Date.parse(String(delivery.last_attempt_at))));
    const [attempt] = delivery.attempt_log as Record<string, unknown>[];
    assert.equal(attempt.status_code, 200);
    assert.equal(attempt.response_body, 'ok');
    assert.equal(typeof attempt.duration_ms, 'number');
  });

  it('redelivers an event: 202 and a fresh webhook delivery with the same event_id', async () => {
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    const [event] = await settled(t, sessionId);
    const before = hook.received.length;
    const res = await t
      .http()
      .post(`${eventsPath(sessionId)}${event.event_id}/redeliver/`)
      .set('Authorization', adminAuth())
      .expect(202);
    assert.equal(typeof res.body.delivery_id, 'number');
    await hook.waitFor(before + 1);
    const again = hook.received[before];
    assert.equal(again.json.event_id, event.event_id);
    assert.equal(again.json.sequence, 1);
    const [listed] = await settled(t, sessionId);
    assert.equal(listed.deliveries.length, 2);
    assert.equal(listed.deliveries[1].id, res.body.delivery_id);
    assert.equal(listed.deliveries[1].status, 'delivered');
  });

  it('answers 404 for an unknown session or event, and 409 without a webhook_url', async () => {
    await t
      .http()
      .get(eventsPath('0'.repeat(40)))
      .set('Authorization', adminAuth())
      .expect(404, { detail: 'Not found.' });
    await t.http().get(eventsPath('nope')).set('Authorization', adminAuth()).expect(404);
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    await t
      .http()
      .post(`${eventsPath(sessionId)}00000000-0000-4000-8000-000000000000/redeliver/`)
      .set('Authorization', adminAuth())
      .expect(404);
    const quiet = await createTransaction(t, s);
    const [event] = await adminEvents(t, quiet);
    assert.deepEqual(event.deliveries, []);
    await t
      .http()
      .post(`${eventsPath(quiet)}${event.event_id}/redeliver/`)
      .set('Authorization', adminAuth())
      .expect(409);
  });

  it('is for admins only', async () => {
    const sessionId = await createTransaction(t, s);
    await t.http().get(eventsPath(sessionId)).expect(401);
    await t.http().get(eventsPath(sessionId)).set('Authorization', s.merchant).expect(403);
    await t.http().get(eventsPath(sessionId)).set('Authorization', s.apiKey).expect(401);
    const [event] = await adminEvents(t, sessionId);
    await t
      .http()
      .post(`${eventsPath(sessionId)}${event.event_id}/redeliver/`)
      .set('Authorization', s.merchant)
      .expect(403);
  });
});

describe('webhook targets on private addresses (WEBHOOK_ALLOW_PRIVATE unset)', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    const { WEBHOOK_ALLOW_PRIVATE: _allowed, ...env } = FAST_DELIVERY_ENV;
    t = await startApp({ env });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  it('refuses, without retrying, a host name that resolves to a loopback or private address', async () => {
    // The machine's own name passes the literal check on input but resolves to 127.0.0.1 (or a
    // private address) — only the check after DNS, at delivery, can catch it.
    const name = hostname();
    const { address } = await lookup(name);
    assert.ok(isBlockedAddress(address), `${name} resolves to ${address}`);
    const sessionId = await createTransaction(t, s, { webhook_url: `http://${name}:${hook.port}/hook` });
    const [event] = await settled(t, sessionId);
    const [delivery] = event.deliveries;
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempts, 1);
    assert.match(
      String(delivery.last_error),
      new RegExp(`^Refused: ${name} resolves to ${address.replace(/\./g, '\\.')}`),
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(hook.received.length, 0);
  });

  it('refuses a literal private address at delivery too (e.g. a stored URL redelivered)', async () => {
    const sessionId = await createTransaction(t, s, { webhook_url: 'https://hooks.example.com/x' });
    await dataSourceOf(t).query(`UPDATE transactions SET webhook_url = ? WHERE session_id = ?`, [
      hook.url,
      sessionId,
    ]);
    const [event] = await adminEvents(t, sessionId);
    await t
      .http()
      .post(`${eventsPath(sessionId)}${event.event_id}/redeliver/`)
      .set('Authorization', adminAuth())
      .expect(202);
    const delivery = await eventually(async () => {
      const [listed] = await adminEvents(t, sessionId);
      const fresh = listed.deliveries.find((d) => d.target === hook.url);
      return fresh && fresh.status !== 'pending' ? fresh : undefined;
    });
    assert.equal(delivery.status, 'failed');
    assert.match(String(delivery.last_error), /^Refused: 127\.0\.0\.1/);
    assert.equal(hook.received.length, 0);
  });
});
