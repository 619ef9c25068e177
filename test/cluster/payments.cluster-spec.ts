import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningService } from '../ops/service-process';
import { HttpReceiver } from '../sinks/http-receiver';
import {
  call,
  dropDatabase,
  freshDatabase,
  inParallel,
  payPath,
  rows,
  seedThrough,
  startReplicas,
  stopReplica,
  SUCCESS_CARD,
  summarize,
  TX_PATH,
  txBody,
} from './cluster-helpers';

/** contract §17: a payment is never lost or doubled, and expiry runs once, with both replicas working. */
describe('payments and expiry with two replicas on two Galera nodes', () => {
  let db: string;
  let a: RunningService;
  let b: RunningService;
  let auth: string;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    db = await freshDatabase();
    const env = {
      EXPIRY_SWEEP_SECONDS: '1',
      PAYMENT_RECONCILE_SECONDS: '2',
      PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '10',
    };
    [a, b] = await startReplicas(db, [[0], env], [[1], env]);
    auth = await seedThrough(a);
  });
  after(async () => {
    await Promise.all([stopReplica(a), stopReplica(b)]);
    await dropDatabase(db);
    await hook.stop();
  });

  const create = (replica: RunningService, overrides: Record<string, unknown> = {}) =>
    call('POST', `${replica.url}${TX_PATH}`, { body: txBody(overrides), headers: { Authorization: auth } });

  it('pays each of 200 transactions once when the same payment is sent through both replicas at once', async () => {
    const created = await inParallel(200, 20, (i) =>
      create(i % 2 ? a : b, { order_no: `pay-${i}`, webhook_url: hook.url }),
    );
    assert.equal(
      summarize(created, (x) => x.status === 201),
      '',
    );
    const ids = created.map((c) => String(c.body.session_id));

    const pays = await inParallel(200, 10, (i) =>
      Promise.all(
        [a, b].map((replica) =>
          call('POST', `${replica.url}${payPath(ids[i])}`, {
            body: { card: SUCCESS_CARD },
            headers: { Authorization: auth },
          }),
        ),
      ),
    );
    const answers = pays.flat();
    assert.equal(
      summarize(answers, (x) => x.status === 200 || x.status === 409),
      '',
      'only 200 or 409',
    );
    for (const [i, pair] of pays.entries()) {
      assert.equal(pair.filter((x) => x.status === 200).length, 1, `${ids[i]}: exactly one attempt charged`);
    }

    await sleep(3000); // deliveries and any reconciler run
    const states = await rows<{ state: string; n: number }>(
      `SELECT state, COUNT(*) AS n FROM \`${db}\`.transactions WHERE order_no LIKE 'pay-%' GROUP BY state`,
    );
    assert.deepEqual(
      states.map((s) => [s.state, Number(s.n)]),
      [['paid', 200]],
    );
    const paidEvents = await rows<{ session_id: string; n: number }>(
      `SELECT session_id, COUNT(*) AS n FROM \`${db}\`.events WHERE event = 'paid' GROUP BY session_id`,
    );
    assert.equal(paidEvents.length, 200);
    assert.deepEqual(
      paidEvents.filter((e) => Number(e.n) !== 1),
      [],
    );
    const pending = await rows(
      `SELECT reference_number FROM \`${db}\`.payment_attempts WHERE result = 'pending'`,
    );
    assert.deepEqual(pending, [], 'no attempt left pending');
    const lost = await rows(
      `SELECT a.reference_number FROM \`${db}\`.payment_attempts a
       JOIN \`${db}\`.transactions t ON t.id = a.transaction_id
       WHERE a.result = 'success' AND t.state <> 'paid'`,
    );
    assert.deepEqual(lost, [], 'no approved attempt whose transaction is not paid');
    const attempts = await rows<{ n: number }>(`SELECT COUNT(*) AS n FROM \`${db}\`.payment_attempts`);
    assert.equal(Number(attempts[0].n), 200, 'the losing submissions never reached the gateway');

    const webhooks = new Map<string, number>();
    for (const r of hook.received.filter((x) => x.json.event === 'paid')) {
      webhooks.set(String(r.json.session_id), (webhooks.get(String(r.json.session_id)) ?? 0) + 1);
    }
    assert.equal(webhooks.size, 200, 'a paid webhook for every transaction');
    assert.deepEqual(
      [...webhooks.values()].filter((n) => n !== 1),
      [],
      'exactly one paid webhook each',
    );
  });

  it('expires 300 overdue transactions once while both replicas sweep every second', async () => {
    const created = await inParallel(300, 20, (i) =>
      create(i % 2 ? a : b, { order_no: `exp-${i}`, expiration_time: '00:00:02' }),
    );
    assert.equal(
      summarize(created, (x) => x.status === 201),
      '',
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [{ n }] = await rows<{ n: number }>(
        `SELECT COUNT(*) AS n FROM \`${db}\`.transactions WHERE order_no LIKE 'exp-%' AND state = 'expired'`,
      );
      if (Number(n) === 300) break;
      assert.ok(Date.now() < deadline, `only ${n} of 300 expired after 30 s`);
      await sleep(500);
    }
    const events = await rows<{ session_id: string; n: number }>(
      `SELECT e.session_id, COUNT(*) AS n FROM \`${db}\`.events e
       JOIN \`${db}\`.transactions t ON t.id = e.transaction_id
       WHERE e.event = 'expired' AND t.order_no LIKE 'exp-%' GROUP BY e.session_id`,
    );
    assert.equal(events.length, 300);
    assert.deepEqual(
      events.filter((e) => Number(e.n) !== 1),
      [],
      'exactly one expired event each',
    );
  });
});
