import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TransactionsRepository } from '../../src/transactions/transactions.repository';
import { transactionBody } from '../factories/transaction.factory';
import { insertDueTransactions } from '../factories/due-transactions';
import { TEST_CARDS, testPayPath, TransactionDriver } from '../factories/transaction-states';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import {
  expiredEventCounts,
  expiryOf,
  FAST_SWEEP_ENV,
  idsInState,
  nextScheduledRun,
  setAutoExpire,
  setDeadline,
  stateCounts,
} from './expiry-helpers';

const CREATE = '/b/checkout/v1/pymt-txn/';

async function create(t: TestApp, s: Seeded, overrides: Record<string, unknown> = {}) {
  const res = await t
    .http()
    .post(CREATE)
    .set('Authorization', s.apiKey)
    .send(transactionBody(overrides))
    .expect(201);
  return res.body as { session_id: string; expires_at: string; state: string };
}

const stateOf = async (t: TestApp, id: string): Promise<string> =>
  String((await t.http().get(`${CREATE}${id}/`).expect(200)).body.state);

const eventNames = async (t: TestApp, id: string): Promise<string[]> =>
  (await adminEvents(t, id)).map((e) => e.event);

/** Waits until the transaction is expired; returns how long that took. */
async function untilExpired(t: TestApp, id: string, timeoutMs = 10_000): Promise<number> {
  const started = Date.now();
  await eventually(
    async () => ((await stateOf(t, id)) === 'expired' ? true : undefined),
    timeoutMs,
    `${id} to expire`,
  );
  return Date.now() - started;
}

/**
 * These tests give the sweep its instant (`ExpiryService.sweep({ now })`, the clock the job's run
 * uses) instead of waiting for deadlines to pass: the job itself stays out of the way (one hour).
 * That the scheduled job runs on its interval and follows the auto_expire toggle is tested once,
 * with its real ticks: "takes a toggle without a restart" below.
 */
describe('auto-expiry on (the default), the sweep at a chosen instant', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp({ env: { EXPIRY_SWEEP_SECONDS: '3600' } });
    s = await seedBasics(t);
  });
  after(() => t.close());

  it('expires a transaction once its deadline passed, emitting expired exactly once', async () => {
    const tx = await create(t, s, {
      expiration_time: '00:00:01',
      order_no: 'auto-1',
      customer_email: 'customer@example.com',
      notifications: { email: ['expired'] },
    });
    assert.equal(tx.state, 'created');
    const deadline = new Date(tx.expires_at);
    assert.equal((await expiryOf(t).sweep({ now: deadline })).expired, 1);
    assert.equal(await stateOf(t, tx.session_id), 'expired');
    // Two more sweeps, later on, must not emit it again.
    assert.equal((await expiryOf(t).sweep({ now: new Date(deadline.getTime() + 1000) })).expired, 0);
    assert.equal((await expiryOf(t).sweep({ now: new Date(deadline.getTime() + 2000) })).expired, 0);
    const events = await adminEvents(t, tx.session_id);
    assert.deepEqual(
      events.map((e) => [e.event, e.sequence]),
      [
        ['created', 1],
        ['expired', 2],
      ],
    );
    const expired = events[1];
    assert.deepEqual(
      expired.deliveries.map((d) => [d.channel, d.target, d.status]),
      [['email', 'customer@example.com', 'skipped']],
    );
    const view = (await t.http().get(`${CREATE}${tx.session_id}/`).expect(200)).body;
    assert.equal(view.state, 'expired');
    assert.equal(view.paid_amount, '0.000');
    // Expired releases its order_no.
    await create(t, s, { order_no: 'auto-1' });
  });

  it('leaves a transaction alone until its deadline', async () => {
    const tx = await create(t, s, { expiration_time: '00:00:04' });
    const deadline = new Date(tx.expires_at);
    // 2.2 s after its creation: not due yet.
    assert.equal((await expiryOf(t).sweep({ now: new Date(deadline.getTime() - 1800) })).expired, 0);
    assert.equal(await stateOf(t, tx.session_id), 'created');
    assert.deepEqual(await eventNames(t, tx.session_id), ['created']);
    assert.equal((await expiryOf(t).sweep({ now: deadline })).expired, 1);
    assert.equal(await stateOf(t, tx.session_id), 'expired');
  });

  it('expires at a pay attempt after the deadline too, still with one expired event', async () => {
    const tx = await create(t, s, { expiration_time: '00:00:01' });
    await setDeadline(dataSourceOf(t), tx.session_id, new Date(Date.now() - 100));
    // The attempt comes before the next sweep: the customer is refused as expired.
    const res = await t
      .http()
      .post(testPayPath(tx.session_id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success })
      .expect(409);
    assert.deepEqual(res.body, { detail: 'A transaction in state "expired" can no longer be paid.' });
    // The next sweep finds it expired already and emits nothing more.
    await expiryOf(t).sweep({ now: new Date(Date.now() + 1000) });
    assert.deepEqual(await eventNames(t, tx.session_id), ['created', 'expired']);
  });
});

describe('expiry sweep: which transactions, and the deadline at its limit', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  before(async () => {
    // The job stays out of the way (one hour): these tests call the sweep with chosen instants.
    t = await startApp({ env: { EXPIRY_SWEEP_SECONDS: '3600' } });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
  });
  after(() => t.close());

  it('expires a transaction whose deadline is the sweep instant, not one due a millisecond later', async () => {
    const tx = await create(t, s, { expiration_time: '10 00:00:00' });
    const deadline = new Date(tx.expires_at);
    const early = await expiryOf(t).sweep({ now: new Date(deadline.getTime() - 1) });
    assert.equal(early.expired, 0);
    assert.equal(await stateOf(t, tx.session_id), 'created');
    const onTime = await expiryOf(t).sweep({ now: deadline });
    assert.equal(onTime.expired, 1);
    assert.equal(await stateOf(t, tx.session_id), 'expired');
  });

  it('expires every payable state (created, failed, error) and no other', async () => {
    const past = new Date(Date.now() - 1000);
    const ids: Record<string, string> = {};
    for (const state of ['created', 'failed', 'error', 'paid', 'canceled', 'expired'] as const) {
      ids[state] = await d.inState(state);
      await setDeadline(dataSourceOf(t), ids[state], past);
    }
    const result = await expiryOf(t).sweep();
    assert.equal(result.expired, 3);
    for (const state of ['created', 'failed', 'error']) {
      assert.equal(await stateOf(t, ids[state]), 'expired', state);
      const events = await eventNames(t, ids[state]);
      assert.equal(events.filter((e) => e === 'expired').length, 1, state);
      assert.equal(events.at(-1), 'expired');
    }
    for (const state of ['paid', 'canceled', 'expired']) {
      assert.equal(await stateOf(t, ids[state]), state);
    }
    // The one `expire` operation event of the already expired one stays the only one.
    assert.deepEqual(await eventNames(t, ids.expired), ['created', 'expired']);
    assert.deepEqual(await eventNames(t, ids.paid), ['created', 'paid']);
  });

  it('works through more due rows than one batch, each expired once', async () => {
    const ds = dataSourceOf(t);
    await insertDueTransactions(ds, 130);
    const before = (await stateCounts(ds)).expired ?? 0;
    const result = await expiryOf(t).sweep({ batchSize: 50 });
    assert.equal(result.expired, 130);
    assert.equal(result.batches, 3);
    const counts = await stateCounts(ds);
    assert.equal(counts.expired, before + 130);
    assert.equal(counts.created ?? 0, 0);
    const events = await expiredEventCounts(ds);
    assert.equal(events.size, before + 130);
    assert.ok([...events.values()].every((n) => n === 1));
  });

  it('falls back to one transition per row when a claimed row changed before the batch UPDATE', async () => {
    const ds = dataSourceOf(t);
    await insertDueTransactions(ds, 6);
    const repo = t.app.get(TransactionsRepository, { strict: false });
    const original = repo.transitionManyIf.bind(repo);
    let paidId = '';
    // A concurrent writer pays one claimed row between the claim and the batch's UPDATE.
    repo.transitionManyIf = async (ids, guard, changes, manager) => {
      repo.transitionManyIf = original;
      paidId = ids[0];
      await manager.query(`UPDATE transactions SET state = 'paid', version = version + 1 WHERE id = ?`, [
        paidId,
      ]);
      return original(ids, guard, changes, manager);
    };
    try {
      const result = await expiryOf(t).sweep();
      // The batch rolled back (the row's payment with it), then each row went through apply().
      assert.equal(result.expired, 6);
    } finally {
      repo.transitionManyIf = original;
    }
    assert.notEqual(paidId, '');
    const events = await expiredEventCounts(ds);
    assert.equal(events.get(paidId), 1);
    assert.ok([...events.values()].every((n) => n === 1));
    // Only expired transactions carry an expired event (none went to a row that was not expired).
    assert.deepEqual([...events.keys()].sort(), (await idsInState(ds, 'expired')).sort());
    assert.equal((await stateCounts(ds)).created ?? 0, 0);
  });

  it('never runs two sweeps at once in one process: the scheduled run is skipped meanwhile', async () => {
    const ds = dataSourceOf(t);
    await insertDueTransactions(ds, 200);
    const expiry = expiryOf(t);
    const first = expiry.sweep({ batchSize: 20 });
    assert.equal(expiry.isRunning, true);
    assert.equal(await expiry.runScheduled(), null);
    const second = expiry.sweep({ batchSize: 20 });
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.expired, 200);
    assert.equal(b.expired, 0);
    assert.equal(expiry.isRunning, false);
    // Not running any more: the scheduled run goes ahead (and finds nothing).
    assert.deepEqual(await expiry.runScheduled(), { expired: 0, batches: 0 });
    assert.ok([...(await expiredEventCounts(ds)).values()].every((n) => n === 1));
  });

  it('does not sweep on the scheduled run while auto-expiry is off', async () => {
    const ds = dataSourceOf(t);
    await setAutoExpire(t, false);
    try {
      await insertDueTransactions(ds, 3);
      assert.equal(await expiryOf(t).runScheduled(), null);
      assert.equal((await stateCounts(ds)).created, 3);
    } finally {
      await setAutoExpire(t, true);
    }
    assert.deepEqual(await expiryOf(t).runScheduled(), { expired: 3, batches: 1 });
  });
});

describe('auto-expiry off: expiry only when the customer tries to pay', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    // The job ticks every second (the shortest interval the config allows) for the toggle test;
    // while auto_expire is off its runs sweep nothing.
    t = await startApp({ env: FAST_SWEEP_ENV });
    s = await seedBasics(t);
    await setAutoExpire(t, false);
  });
  after(() => t.close());

  it('keeps a transaction past its deadline as it is, and retrieve does not change it', async () => {
    const tx = await create(t, s, { expiration_time: '00:00:01' });
    await setDeadline(dataSourceOf(t), tx.session_id, new Date(Date.now() - 1500));
    // Two scheduled runs (what the job does on its ticks) while auto-expiry is off: no sweep.
    assert.equal(await expiryOf(t).runScheduled(), null);
    assert.equal(await expiryOf(t).runScheduled(), null);
    const first = await t.http().get(`${CREATE}${tx.session_id}/`).expect(200);
    const second = await t.http().get(`${CREATE}${tx.session_id}/`).expect(200);
    assert.equal(first.body.state, 'created');
    assert.equal(second.body.state, 'created');
    assert.equal(second.headers.etag, first.headers.etag);
    assert.deepEqual(await eventNames(t, tx.session_id), ['created']);
  });

  it('expires it at the pay attempt after the deadline, with its event, and refuses the payment', async () => {
    const tx = await create(t, s, {
      expiration_time: '00:00:01',
      order_no: 'late-off',
      customer_email: 'customer@example.com',
      notifications: { email: ['expired'] },
    });
    await setDeadline(dataSourceOf(t), tx.session_id, new Date(Date.now() - 1200));
    assert.equal(await expiryOf(t).runScheduled(), null);
    assert.equal(await stateOf(t, tx.session_id), 'created');
    const res = await t
      .http()
      .post(testPayPath(tx.session_id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success })
      .expect(409);
    assert.deepEqual(res.body, { detail: 'A transaction in state "expired" can no longer be paid.' });
    const view = (await t.http().get(`${CREATE}${tx.session_id}/`).expect(200)).body;
    assert.equal(view.state, 'expired');
    assert.equal(view.paid_amount, '0.000');
    // A second try changes nothing more.
    await t
      .http()
      .post(testPayPath(tx.session_id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success })
      .expect(409);
    const events = await adminEvents(t, tx.session_id);
    assert.deepEqual(
      events.map((e) => [e.event, e.sequence]),
      [
        ['created', 1],
        ['expired', 2],
      ],
    );
    assert.deepEqual(
      events[1].deliveries.map((d) => [d.channel, d.status]),
      [['email', 'skipped']],
    );
    await create(t, s, { order_no: 'late-off' });
  });

  it('still pays a transaction whose deadline has not passed', async () => {
    const tx = await create(t, s, { expiration_time: '00:00:05' });
    // 1.5 s after its creation, its deadline 3.5 s ahead.
    await setDeadline(dataSourceOf(t), tx.session_id, new Date(Date.now() + 3500));
    assert.equal(await expiryOf(t).runScheduled(), null);
    const res = await t
      .http()
      .post(testPayPath(tx.session_id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success })
      .expect(200);
    assert.equal(res.body.state, 'paid');
  });

  // The one test that waits for the job's real ticks (every second, the shortest interval the
  // config allows): its point is that the scheduled job runs on its own and reads the toggle on
  // every run, which no call of the sweep can show. It waits for the job's runs themselves
  // (nextScheduledRun), never for a fixed time.
  it('takes a toggle without a restart: on expires within an interval, off again stops it', async () => {
    const ds = dataSourceOf(t);
    const late = await create(t, s, { expiration_time: '00:00:01' });
    await setDeadline(ds, late.session_id, new Date(Date.now() - 1200));
    // A run of the job while off: it sweeps nothing.
    assert.equal(await nextScheduledRun(t), null);
    assert.equal(await stateOf(t, late.session_id), 'created');

    await setAutoExpire(t, true);
    // One interval (1 s) plus the time a sweep takes on a busy machine.
    const took = await untilExpired(t, late.session_id, 8000);
    assert.ok(took < 8000);
    assert.deepEqual(await eventNames(t, late.session_id), ['created', 'expired']);

    await setAutoExpire(t, false);
    // A run that started before the toggle may still be finishing: a run that starts after it
    // ends after that one (the job's runs never overlap), and sweeps nothing.
    assert.equal(await nextScheduledRun(t), null);
    const created = (await stateCounts(ds)).created ?? 0;
    await insertDueTransactions(ds, 5);
    assert.equal(await nextScheduledRun(t), null);
    assert.equal((await stateCounts(ds)).created, created + 5);
  });
});

describe('expiry job: graceful stop', () => {
  it('finishes the batch in progress and stops: that batch has its events, the rest stay', async () => {
    const t = await startApp({ env: { EXPIRY_SWEEP_SECONDS: '3600' } });
    try {
      const ds = dataSourceOf(t);
      await insertDueTransactions(ds, 100);
      const expiry = expiryOf(t);
      const sweeping = expiry.sweep({ batchSize: 20 });
      // The first batch has started (its DB transaction is open): stop now.
      await expiry.stop();
      const result = await sweeping;
      assert.deepEqual(result, { expired: 20, batches: 1 });
      assert.equal(expiry.isRunning, false);
      const counts = await stateCounts(ds);
      assert.equal(counts.expired, 20);
      assert.equal(counts.created, 80);
      const events = await expiredEventCounts(ds);
      assert.equal(events.size, 20);
      assert.ok([...events.values()].every((n) => n === 1));
      // Stopped for good: no later run starts.
      assert.equal(await expiry.runScheduled(), null);
    } finally {
      await t.close();
    }
  });

  it('lets the running batch commit when the app shuts down mid-sweep', async () => {
    const t = await startApp({ env: { EXPIRY_SWEEP_SECONDS: '3600' } });
    let closed = false;
    try {
      await insertDueTransactions(dataSourceOf(t), 100);
      const sweeping = expiryOf(t).sweep({ batchSize: 20 });
      await t.app.close();
      closed = true;
      // Resolved, not failed by a closed connection: the batch ended before the database closed.
      // How many whole batches ran before the stop reached the job depends on the other modules'
      // shutdown hooks; what matters is whole batches only, and a stop well before the end.
      const result = await sweeping;
      assert.equal(result.expired, result.batches * 20);
      assert.ok(result.batches >= 1 && result.batches < 5, `stopped after ${result.batches} batches`);
    } finally {
      if (closed) await t.db.drop();
      else await t.close();
    }
  });
});
