import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import { DispatcherService } from '../../src/events/dispatcher.service';
import {
  adminEvents,
  createTransaction,
  dataSourceOf,
  eventually,
  FAST_DELIVERY_ENV,
  settled,
} from './event-helpers';

/**
 * Deliveries are written claimed by the dispatcher of the process that records them and sent right
 * after the commit, with no claim round trips; anything else still goes through the
 * dispatcher's passes (retries, other replicas' rows, lease takeovers).
 */
describe('deliveries sent right after their commit', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start((_, i) => (i === 1 ? { status: 500 } : { status: 200 }));
    // No periodic pass within the test: only the direct send (or a retry's timer) can deliver.
    t = await startApp({ env: { ...FAST_DELIVERY_ENV, DISPATCH_INTERVAL_MS: '3600000' } });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  it('a new webhook goes out at once, without waiting for a dispatcher pass, and is marked delivered', async () => {
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    await hook.waitFor(1, 3000);
    assert.equal(hook.received[0].json.session_id, sessionId);
    const [event] = await settled(t, sessionId);
    const [delivery] = event.deliveries;
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.attempt_log.length, 1);
    const [row] = await dataSourceOf(t).query<{ claimed_by: string | null; claimed_until: unknown }[]>(
      'SELECT claimed_by, claimed_until FROM deliveries WHERE id = ?',
      [delivery.id],
    );
    assert.deepEqual([row.claimed_by, row.claimed_until], [null, null], 'the claim is released');
  });

  it('a failed direct send is left to the retries like any other', async () => {
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    await hook.waitFor(2, 3000); // the second request the receiver sees answers 500
    const pending = await eventually(
      async () => {
        const [delivery] = (await adminEvents(t, sessionId))[0].deliveries;
        return delivery.attempts === 1 ? delivery : undefined;
      },
      3000,
      'the failed attempt',
    );
    assert.equal(pending.status, 'pending');
    assert.equal(pending.last_status_code, 500);
    // The retry is the dispatcher's: its pass takes the row once due (100 ms later here).
    await new Promise((r) => setTimeout(r, 150));
    await t.app.get(DispatcherService).dispatchDue();
    const [delivery] = (await settled(t, sessionId))[0].deliveries;
    assert.equal(delivery.status, 'delivered');
    assert.deepEqual(
      delivery.attempt_log.map((a) => a.status_code),
      [500, 200],
    );
  });

  it('finishes that complete together are written together, each with its own outcome', async () => {
    // Answers by session: every third one 503, the others 200.
    const verdict = new Map<string, number>();
    const mixed = await HttpReceiver.start((request) => {
      const id = String(request.json.session_id);
      if (!verdict.has(id)) verdict.set(id, verdict.size % 3 === 2 ? 503 : 200);
      return { status: verdict.get(id)! };
    });
    try {
      const ids = await Promise.all(
        Array.from({ length: 18 }, () => createTransaction(t, s, { webhook_url: mixed.url })),
      );
      await mixed.waitFor(18, 5000);
      for (const id of ids) {
        const [delivery] = await eventually(
          async () => {
            const [d] = (await adminEvents(t, id))[0].deliveries;
            return d.attempts === 1 ? [d] : undefined;
          },
          5000,
          `the finish of ${id}`,
        );
        const status = verdict.get(id);
        assert.equal(delivery.last_status_code, status, id);
        assert.equal(delivery.status, status === 200 ? 'delivered' : 'pending', id);
        assert.deepEqual(
          delivery.attempt_log.map((a) => a.status_code),
          [status],
        );
        const [row] = await dataSourceOf(t).query<{ claimed_by: string | null }[]>(
          'SELECT claimed_by FROM deliveries WHERE id = ?',
          [delivery.id],
        );
        assert.equal(row.claimed_by, null, 'every claim released');
      }
      assert.equal([...verdict.values()].filter((v) => v === 503).length, 6);
    } finally {
      await mixed.stop();
    }
  });
});
