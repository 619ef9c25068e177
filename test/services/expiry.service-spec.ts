import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AdminConfigService } from '../../src/admin-config/admin-config.service';
import type { DeliveryOutcome } from '../../src/events/delivery-outcome';
import { DispatcherService } from '../../src/events/dispatcher.service';
import { WebhookSender } from '../../src/events/webhooks/webhook-sender';
import { ExpiryModule } from '../../src/expiry/expiry.module';
import { ExpiryService } from '../../src/expiry/expiry.service';
import { insertDueTransactions } from '../factories/due-transactions';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import { seedServiceWorld } from '../setup/service-world';

const HOOK = 'https://merchant.example.com/hooks/expiry';

/** ExpiryService (contract §7): due payable rows expired in batches, each with one `expired` event. */
describe('ExpiryService', () => {
  let ctx: ServiceContext;
  let expiry: ExpiryService;
  const sent: string[] = [];

  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    Number((await ctx.dataSource.query<{ n: string | number }[]>(sql, params))[0].n);
  const inState = (state: string) => count('SELECT COUNT(*) AS n FROM transactions WHERE state = ?', [state]);

  before(async () => {
    ctx = await createServiceContext({
      imports: [ExpiryModule],
      env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
      overrides: [
        {
          provide: WebhookSender,
          useValue: {
            send: (event: { eventId: string }): Promise<DeliveryOutcome> => {
              sent.push(event.eventId);
              return Promise.resolve({
                ok: true,
                retryable: false,
                statusCode: 200,
                error: null,
                responseBody: null,
              });
            },
            onApplicationShutdown: () => undefined,
          },
        },
      ],
    });
    await seedServiceWorld(ctx);
    expiry = ctx.get(ExpiryService);
  });
  after(() => ctx.close());
  beforeEach(async () => {
    await ctx.get(DispatcherService).dispatchDue(); // the last test's sends have written their outcome
    await ctx.dataSource.query('DELETE FROM delivery_attempts');
    await ctx.dataSource.query('DELETE FROM deliveries');
    await ctx.dataSource.query('DELETE FROM events');
    await ctx.dataSource.query('DELETE FROM transactions');
    await ctx.get(AdminConfigService).update({ autoExpire: true });
  });

  it('expires every due payable row, a batch at a time, and leaves the others alone', async () => {
    await insertDueTransactions(ctx.dataSource, 9, { state: 'created' });
    await insertDueTransactions(ctx.dataSource, 2, { state: 'failed' });
    await insertDueTransactions(ctx.dataSource, 1, { state: 'error' });
    await insertDueTransactions(ctx.dataSource, 3, { expiresAt: new Date(Date.now() + 3_600_000) });
    await insertDueTransactions(ctx.dataSource, 2, { state: 'paid' });
    assert.deepEqual(await expiry.sweep({ batchSize: 5 }), { expired: 12, batches: 3 });
    assert.equal(await inState('expired'), 12);
    assert.equal(await inState('created'), 3, 'not due yet');
    assert.equal(await inState('paid'), 2, 'not payable');
    assert.deepEqual(await expiry.sweep({ batchSize: 5 }), { expired: 0, batches: 0 });
  });

  it('writes one `expired` event per expired row, with its deliveries, in the same units', async () => {
    await insertDueTransactions(ctx.dataSource, 7, { overrides: { webhookUrl: HOOK } });
    await expiry.sweep({ batchSize: 3 });
    await expiry.sweep({ batchSize: 3 });
    assert.equal(
      await count("SELECT COUNT(*) AS n FROM events WHERE event = 'expired'"),
      7,
      'each expired row has exactly one event',
    );
    assert.equal(
      await count('SELECT COUNT(DISTINCT transaction_id) AS n FROM events'),
      7,
      'one event per transaction',
    );
    assert.equal(
      await count(
        "SELECT COUNT(*) AS n FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.channel = 'webhook' AND d.target = ?",
        [HOOK],
      ),
      7,
    );
    // The expired rows moved on: version and event sequence.
    assert.equal(
      await count("SELECT COUNT(*) AS n FROM transactions WHERE state = 'expired' AND version = 2"),
      7,
    );
  });

  it('a deadline is compared with `now`: rows due later are left for a later sweep', async () => {
    const in1h = new Date(Date.now() + 3_600_000);
    await insertDueTransactions(ctx.dataSource, 4, { expiresAt: in1h });
    assert.deepEqual(await expiry.sweep(), { expired: 0, batches: 0 });
    const later = new Date(in1h.getTime() + 1000);
    assert.equal((await expiry.sweep({ now: later })).expired, 4);
  });

  it('the scheduled run sweeps only while auto_expire is on (read on every run)', async () => {
    await insertDueTransactions(ctx.dataSource, 3);
    await ctx.get(AdminConfigService).update({ autoExpire: false });
    assert.equal(await expiry.runScheduled(), null);
    assert.equal(await inState('created'), 3);
    await ctx.get(AdminConfigService).update({ autoExpire: true });
    assert.equal((await expiry.runScheduled())?.expired, 3);
  });

  it('sweeps asked for at once run one after another and never expire a row twice', async () => {
    await insertDueTransactions(ctx.dataSource, 20);
    const results = await Promise.all([
      expiry.sweep({ batchSize: 4 }),
      expiry.sweep({ batchSize: 4 }),
      expiry.sweep({ batchSize: 4 }),
    ]);
    assert.equal(
      results.reduce((n, r) => n + r.expired, 0),
      20,
    );
    assert.equal(await count("SELECT COUNT(*) AS n FROM events WHERE event = 'expired'"), 20);
  });
});
