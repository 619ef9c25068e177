import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeliveriesRepository } from '../../src/events/deliveries.repository';
import { Delivery } from '../../src/events/delivery.entity';
import { TransactionEvents } from '../../src/transactions/events/transaction-events';
import { DELIVERY_DISPATCH, NO_DELIVERY_DISPATCH } from '../../src/events/delivery-dispatch';
import { Transaction } from '../../src/transactions/transaction.entity';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTestDatabase, testDbKind } from '../setup/test-database';
import { HttpReceiver } from '../sinks/http-receiver';
import {
  adminEvents,
  createTransaction,
  dataSourceOf,
  eventually,
  FAST_DELIVERY_ENV,
  settled,
  unitOf,
} from './event-helpers';

/**
 * Records a `paid` event for each transaction in ONE DB transaction, with its deliveries held
 * back until `dueAt` — so that every dispatcher sees them become due at the same moment.
 */
async function recordPaidEvents(
  t: TestApp,
  sessionIds: string[],
  webhookUrl: string,
  dueAt: Date,
): Promise<void> {
  await unitOf(t).run(async (manager) => {
    const repo = manager.getRepository(Transaction);
    for (const sessionId of sessionIds) {
      const tx = await repo.findOneByOrFail({ sessionId });
      await repo.update({ id: tx.id }, { state: 'paid', webhookUrl });
      await t.app.get(TransactionEvents).record(manager, { ...tx, state: 'paid', webhookUrl }, 'paid');
    }
    await manager.query(`UPDATE deliveries SET next_attempt_at = ? WHERE status = 'pending'`, [
      testDbKind() === 'mysql' ? dueAt : dueAt.toISOString().replace('T', ' ').replace('Z', ''),
    ]);
  });
}

/** The outbox of this app writes every delivery unclaimed; its dispatcher's passes still run. */
const WRITES_UNCLAIMED = { provide: DELIVERY_DISPATCH, useValue: NO_DELIVERY_DISPATCH };

describe('outbox durability', () => {
  it('delivers after an app restart in the middle of its retries', async () => {
    const db = await createTestDatabase();
    const hook = await HttpReceiver.start(() => ({ status: 500 }));
    let first: TestApp | null = await startApp({
      db,
      env: { ...FAST_DELIVERY_ENV, WEBHOOK_RETRY_SCHEDULE: '1s' },
    });
    let second: TestApp | null = null;
    try {
      const s = await seedBasics(first);
      const sessionId = await createTransaction(first, s, { webhook_url: hook.url });
      await hook.waitFor(1);
      const pending = await eventually(async () => {
        const [event] = await adminEvents(first!, sessionId);
        return event.deliveries[0].attempts === 1 ? event.deliveries[0] : undefined;
      });
      assert.equal(pending.status, 'pending');
      await first.close();
      first = null;
      hook.responder = () => ({ status: 200 });
      second = await startApp({ db, env: FAST_DELIVERY_ENV });
      const [event] = await settled(second, sessionId);
      assert.equal(event.deliveries[0].status, 'delivered');
      assert.equal(event.deliveries[0].attempts, 2);
      assert.equal(hook.received.length, 2);
      assert.equal(hook.received[1].json.event_id, event.event_id);
    } finally {
      await first?.close();
      await second?.close();
      await hook.stop();
      await db.drop();
    }
  });

  it('finishes a delivery in flight when the app shuts down, and does not send it again', async () => {
    const db = await createTestDatabase();
    const hook = await HttpReceiver.start(() => ({ status: 200, delayMs: 600 }));
    let first: TestApp | null = await startApp({ db, env: FAST_DELIVERY_ENV });
    let second: TestApp | null = null;
    try {
      const s = await seedBasics(first);
      const sessionId = await createTransaction(first, s, { webhook_url: hook.url });
      await hook.waitFor(1);
      await first.close(); // while the receiver is still answering
      first = null;
      hook.responder = () => ({ status: 200 });
      second = await startApp({ db, env: FAST_DELIVERY_ENV });
      const [event] = await adminEvents(second, sessionId);
      assert.equal(event.deliveries[0].status, 'delivered');
      assert.equal(event.deliveries[0].attempts, 1);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(hook.received.length, 1);
    } finally {
      await first?.close();
      await second?.close();
      await hook.stop();
      await db.drop();
    }
  });

  it('lets a worker that stalled past its lease log its attempt, but not release or overwrite the claim taken since', async () => {
    // The row is worker B's, not this process's: its outbox writes deliveries unclaimed.
    const t = await startApp({ env: FAST_DELIVERY_ENV, overrides: [WRITES_UNCLAIMED] });
    try {
      const s = await seedBasics(t);
      const sessionId = await createTransaction(t, s);
      const farFuture = new Date(Date.now() + 3600_000);
      const ds = dataSourceOf(t);
      // Worker B holds the claim now (its lease runs far ahead, so this app's dispatcher keeps away).
      await unitOf(t).run(async (manager) => {
        const tx = await manager.getRepository(Transaction).findOneByOrFail({ sessionId });
        const url = 'https://merchant.example/hook';
        await t.app
          .get(TransactionEvents)
          .record(manager, { ...tx, state: 'created', webhookUrl: url }, 'created');
        await manager.query(
          `UPDATE deliveries SET claimed_by = 'worker-B', claimed_until = ? WHERE status = 'pending'`,
          [testDbKind() === 'mysql' ? farFuture : farFuture.toISOString().replace('T', ' ').replace('Z', '')],
        );
      });
      const [row] = await ds.getRepository(Delivery).find({ where: { claimedBy: 'worker-B' } });
      assert.ok(row, 'the delivery claimed by worker B');
      // Worker A, whose lease on the same row ran out while it was sending, now finishes.
      const now = new Date();
      await t.app.get(DeliveriesRepository).finish(
        { ...row, claimedBy: 'worker-A' },
        {
          outcome: { ok: true, retryable: false, statusCode: 200, error: null, responseBody: 'ok' },
          attemptedAt: now,
          durationMs: 5,
          status: 'delivered',
          nextAttemptAt: now,
        },
      );
      const after = await ds.getRepository(Delivery).findOneByOrFail({ id: row.id });
      assert.equal(after.claimedBy, 'worker-B');
      assert.equal(after.status, 'pending');
      assert.equal(after.attempts, 0);
      const [{ n }] = await ds.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM delivery_attempts WHERE delivery_id = ?',
        [row.id],
      );
      assert.equal(Number(n), 1, 'the attempt that happened is still logged');
    } finally {
      await t.close();
    }
  });

  it('takes over a delivery claimed by a worker that died, once its lease runs out', async () => {
    const hook = await HttpReceiver.start();
    // This process's dispatcher must not claim the row as it is written (it would send it right
    // after the commit): the row belongs to the dead worker below. Its passes still run.
    const t = await startApp({ env: FAST_DELIVERY_ENV, overrides: [WRITES_UNCLAIMED] });
    try {
      const s = await seedBasics(t);
      const sessionId = await createTransaction(t, s);
      const leaseEnd = new Date(Date.now() + 3000);
      // A worker claimed the row and died before sending it: its claim is committed with the event.
      await unitOf(t).run(async (manager) => {
        const tx = await manager.getRepository(Transaction).findOneByOrFail({ sessionId });
        await manager.getRepository(Transaction).update({ id: tx.id }, { webhookUrl: hook.url });
        await t.app
          .get(TransactionEvents)
          .record(manager, { ...tx, state: 'created', webhookUrl: hook.url }, 'created');
        await manager.query(
          `UPDATE deliveries SET claimed_by = 'dead-worker#1', claimed_until = ? WHERE status = 'pending'`,
          [testDbKind() === 'mysql' ? leaseEnd : leaseEnd.toISOString().replace('T', ' ').replace('Z', '')],
        );
      });
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(Date.now() < leaseEnd.getTime(), 'checked while the lease still runs');
      assert.equal(hook.received.length, 0, 'a live lease keeps other workers away');
      await hook.waitFor(1, 10_000);
      assert.ok(hook.received[0].at >= leaseEnd.getTime() - 5, 'sent only after the lease ended');
      const events = await settled(t, sessionId);
      assert.equal(events[1].deliveries[0].status, 'delivered');
      assert.equal(events[1].deliveries[0].attempts, 1);
    } finally {
      await t.close();
      await hook.stop();
    }
  });

  it(
    testDbKind() === 'mysql'
      ? 'two dispatchers on one MySQL deliver each row exactly once'
      : 'the embedded database runs one dispatcher that delivers each row exactly once',
    async () => {
      const N = 40;
      const db = await createTestDatabase();
      const hook = await HttpReceiver.start(() => ({ status: 200 }));
      // No polling: the test fires the dispatchers itself, all at the same instant.
      const env = { ...FAST_DELIVERY_ENV, DISPATCH_INTERVAL_MS: '3600000' };
      const apps: TestApp[] = [];
      try {
        apps.push(await startApp({ db, env }));
        if (db.kind === 'mysql') apps.push(await startApp({ db, env }));
        // passport's strategies are process-wide: talk to the latest app (same database)
        const api = apps[apps.length - 1];
        const s: Seeded = await seedBasics(api);
        const sessionIds: string[] = [];
        for (let i = 0; i < N; i++) sessionIds.push(await createTransaction(api, s));
        // Due a little later, so that the pass poked by the commit finds nothing yet.
        const dueAt = new Date(Date.now() + 1500);
        await recordPaidEvents(api, sessionIds, hook.url, dueAt);
        await new Promise((r) => setTimeout(r, Math.max(0, dueAt.getTime() - Date.now()) + 20));
        const { DispatcherService } = await import('../../src/events/dispatcher.service');
        const dispatchers = apps.map((app) => app.app.get(DispatcherService));
        for (let round = 0; round < 20 && hook.received.length < N; round++) {
          await Promise.all(dispatchers.map((d) => d.dispatchDue()));
        }
        await hook.waitFor(N, 20_000);
        await new Promise((r) => setTimeout(r, 500));
        const perEvent = new Map<string, number>();
        for (const r of hook.received)
          perEvent.set(String(r.json.event_id), (perEvent.get(String(r.json.event_id)) ?? 0) + 1);
        assert.equal(hook.received.length, N, 'no row was sent twice');
        assert.equal(perEvent.size, N);
        assert.ok([...perEvent.values()].every((n) => n === 1));
        const [{ attempts }] = await dataSourceOf(api).query<{ attempts: string | number }[]>(
          `SELECT COUNT(*) AS attempts FROM delivery_attempts`,
        );
        assert.equal(Number(attempts), N);
        const statuses = await dataSourceOf(api).query<{ status: string; n: string | number }[]>(
          `SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status`,
        );
        assert.deepEqual(
          statuses.map((r) => [r.status, Number(r.n)]),
          [['delivered', N]],
        );
      } finally {
        for (const app of apps) await app.close();
        await hook.stop();
        await db.drop();
      }
    },
  );
});
