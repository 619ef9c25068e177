import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { insertDueTransactions } from '../factories/due-transactions';
import { TEST_CARDS, testPayPath } from '../factories/transaction-states';
import { transactionBody } from '../factories/transaction.factory';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';
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

/** Every expired transaction has exactly one `expired` event, and only expired ones have one. */
async function assertExpiredExactlyOnce(ds: DataSource): Promise<number> {
  const expired = await idsInState(ds, 'expired');
  const events = await expiredEventCounts(ds);
  assert.deepEqual([...events.keys()].sort(), [...expired].sort());
  const repeated = [...events.entries()].filter(([, n]) => n !== 1);
  assert.deepEqual(repeated, [], 'transactions with more than one expired event');
  return expired.length;
}

/**
 * Several replicas on one database (contract §7, §14). On MySQL two app instances share one schema;
 * embedded SQLite is single-process by nature, so there the same checks run on one instance.
 */
describe(`expiry with ${testDbKind() === 'mysql' ? 'two app instances on one MySQL' : 'one instance (SQLite)'}`, () => {
  let a: TestApp;
  let replicas: TestApp[];
  let s: Seeded;
  let ds: DataSource;
  before(async () => {
    a = await startApp({ env: FAST_SWEEP_ENV });
    replicas = [a];
    if (a.db.kind === 'mysql') replicas.push(await startApp({ env: FAST_SWEEP_ENV, db: a.db }));
    s = await seedBasics(a);
    ds = dataSourceOf(a);
    await setAutoExpire(a, false);
  });
  after(async () => {
    for (const r of replicas.slice(1)) await r.app.close();
    await a.close();
  });

  it('expires each due transaction exactly once when every replica sweeps at the same time', async () => {
    await insertDueTransactions(ds, 1200, {
      overrides: { customerEmail: 'customer@example.com', notifications: { email: ['expired'] } },
    });
    const results = await Promise.all(
      replicas.flatMap((r) => [expiryOf(r).sweep({ batchSize: 25 }), expiryOf(r).sweep({ batchSize: 25 })]),
    );
    assert.equal(
      results.reduce((sum, r) => sum + r.expired, 0),
      1200,
    );
    assert.equal((await stateCounts(ds)).expired, 1200);
    assert.equal(await assertExpiredExactlyOnce(ds), 1200);
    const [deliveries] = await ds.query<{ n: string | number }[]>(
      `SELECT COUNT(*) AS n FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.event = 'expired'`,
    );
    assert.equal(Number(deliveries.n), 1200);
    const [sequences] = await ds.query<{ lo: number; hi: number }[]>(
      `SELECT MIN(sequence) AS lo, MAX(sequence) AS hi FROM events WHERE event = 'expired'`,
    );
    assert.deepEqual([Number(sequences.lo), Number(sequences.hi)], [1, 1]);
  });

  // The test of this file that waits for the jobs' real ticks (every second, the shortest interval
  // the config allows): its point is that the scheduled job runs on every replica and each reads
  // the toggle stored through another. It waits for the jobs' runs themselves (nextScheduledRun),
  // never for a fixed time.
  it('runs the scheduled job on every replica: all due expired once, a toggle on one reaches all', async () => {
    await insertDueTransactions(ds, 600);
    // A run of every replica's job while off: none sweeps.
    assert.deepEqual(
      await Promise.all(replicas.map((r) => nextScheduledRun(r))),
      replicas.map(() => null),
    );
    assert.equal((await stateCounts(ds)).created, 600);
    // Toggled through the last replica: every replica reads the stored config on its next run.
    await setAutoExpire(replicas.at(-1)!, true);
    await eventually(
      async () => (((await stateCounts(ds)).created ?? 0) === 0 ? true : undefined),
      20_000,
      'the job to expire every due transaction',
    );
    assert.equal(await assertExpiredExactlyOnce(ds), 1800);

    await setAutoExpire(a, false);
    // Runs that started before the toggle may still be finishing: a run of each replica that
    // starts after it ends after them (a job's runs never overlap), and sweeps nothing.
    assert.deepEqual(
      await Promise.all(replicas.map((r) => nextScheduledRun(r))),
      replicas.map(() => null),
    );
    await insertDueTransactions(ds, 30);
    assert.deepEqual(
      await Promise.all(replicas.map((r) => nextScheduledRun(r))),
      replicas.map(() => null),
    );
    assert.equal((await stateCounts(ds)).created, 30);
    await expiryOf(a).sweep();
  });

  it('ends a transaction paid in the same instant as the sweep either paid or expired, never both', async (ctx) => {
    const rounds = 16;
    const base = Date.now() + 3_600_000;
    const outcomes: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const created = await a
        .http()
        .post('/b/checkout/v1/pymt-txn/')
        .set('Authorization', s.apiKey)
        .send(transactionBody({ expiration_time: '2 00:00:00' }))
        .expect(201);
      const id = String(created.body.session_id);
      // Due for a sweep run at `deadline`; not yet for the pay path, which compares with the clock.
      const deadline = new Date(base + i * 60_000);
      await setDeadline(ds, id, deadline);
      const sweeper = replicas[i % replicas.length];
      const payer = replicas[(i + 1) % replicas.length];
      const [paid, swept] = await Promise.all([
        payer.http().post(testPayPath(id)).set('Authorization', s.apiKey).send({ card: TEST_CARDS.success }),
        // The sweep lands at a different moment of the payment in each round (before, during, after).
        sleep(i * 6).then(() => expiryOf(sweeper).sweep({ now: deadline })),
      ]);
      const view = (await a.http().get(`/b/checkout/v1/pymt-txn/${id}/`).expect(200)).body;
      const events = (await adminEvents(a, id)).map((e) => e.event);
      if (view.state === 'paid') {
        assert.equal(paid.status, 200);
        assert.equal(swept.expired, 0);
        assert.deepEqual(events, ['created', 'paid']);
        assert.equal(view.paid_amount, '86.000');
      } else {
        assert.equal(view.state, 'expired');
        assert.equal(paid.status, 409);
        assert.equal(swept.expired, 1);
        assert.deepEqual(events, ['created', 'expired']);
        assert.equal(view.paid_amount, '0.000');
      }
      outcomes.push(view.state);
    }
    assert.equal(outcomes.length, rounds);
    ctx.diagnostic(`outcomes: ${outcomes.join(' ')}`);
  });
});
