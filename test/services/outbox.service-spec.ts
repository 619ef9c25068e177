import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { In } from 'typeorm';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { Delivery } from '../../src/events/delivery.entity';
import type { DeliveryOutcome } from '../../src/events/delivery-outcome';
import { DispatcherService } from '../../src/events/dispatcher.service';
import type { EventEnvelope } from '../../src/events/event-envelope';
import { OutboxEvent } from '../../src/events/event.entity';
import { OutboxService } from '../../src/events/outbox.service';
import { WebhookSender } from '../../src/events/webhooks/webhook-sender';
import { TransactionsModule } from '../../src/transactions/transactions.module';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import { createTransaction, seedServiceWorld, type ServiceWorld } from '../setup/service-world';

const HOOK = 'https://merchant.example.com/hooks/checkout';
const OK: DeliveryOutcome = { ok: true, retryable: false, statusCode: 200, error: null, responseBody: 'ok' };
const BUSY: DeliveryOutcome = {
  ok: false,
  retryable: true,
  statusCode: 503,
  error: 'HTTP 503',
  responseBody: null,
};

/** The webhook edge, replaced: records every send (event id → count) and answers `next`. */
class RecordingWebhooks {
  readonly sent = new Map<string, number>();
  next: DeliveryOutcome = OK;

  send(event: OutboxEvent): Promise<DeliveryOutcome> {
    this.sent.set(event.eventId, (this.sent.get(event.eventId) ?? 0) + 1);
    return Promise.resolve(this.next);
  }

  onApplicationShutdown(): void {}
}

/** OutboxService and DispatcherService (contract §6, §17): recorded with the change, sent once. */
describe('OutboxService and DispatcherService', () => {
  let a: ServiceContext;
  let b: ServiceContext;
  let w: ServiceWorld;
  const hooksA = new RecordingWebhooks();
  const hooksB = new RecordingWebhooks();
  const events = () => a.dataSource.getRepository(OutboxEvent);
  const deliveries = () => a.dataSource.getRepository(Delivery);

  /** Waits until the dispatcher's sends after a commit have finished writing their outcome. */
  async function settled(rowIds: string[]): Promise<Delivery[]> {
    const until = Date.now() + 10_000;
    for (;;) {
      const rows = await deliveries().find({ where: { eventRowId: In(rowIds) } });
      if (rows.every((d) => d.status !== 'pending' || d.attempts > 0) || Date.now() > until) return rows;
      await sleep(20);
    }
  }

  function envelope(tx: { id: string; sessionId: string }, sequence: number): EventEnvelope {
    return {
      eventId: randomUUID(),
      transactionId: tx.id,
      sessionId: tx.sessionId,
      sequence,
      event: 'created',
      payload: { session_id: tx.sessionId, sequence },
      context: { language: 'en', checkout_url: '', attachment_url: null, merchant_name: '' },
      deliveries: [{ channel: 'webhook', target: HOOK, skippedReason: null }],
      createdAt: new Date(),
    };
  }

  before(async () => {
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true' };
    a = await createServiceContext({
      imports: [TransactionsModule],
      env,
      overrides: [{ provide: WebhookSender, useValue: hooksA }],
    });
    b = await createServiceContext({
      imports: [TransactionsModule],
      env,
      db: a.db,
      overrides: [{ provide: WebhookSender, useValue: hooksB }],
    });
    w = await seedServiceWorld(a);
  });
  after(async () => {
    await b.close();
    await a.close();
  });
  beforeEach(() => {
    hooksA.sent.clear();
    hooksB.sent.clear();
    hooksA.next = OK;
  });

  it('a create commits the transaction, its `created` event and its webhook delivery together; it is sent once', async () => {
    const { body } = await createTransaction(a, w.apiKey, { webhook_url: HOOK });
    const [event, ...more] = await events().find({ where: { sessionId: body.session_id } });
    assert.equal(more.length, 0);
    assert.equal(event.event, 'created');
    const [delivery] = await settled([event.id]);
    assert.deepEqual([delivery.channel, delivery.target], ['webhook', HOOK]);
    assert.deepEqual([delivery.status, delivery.attempts], ['delivered', 1]);
    assert.equal(hooksA.sent.get(event.eventId), 1);
  });

  it('a unit of work that rolls back records no event and no delivery, and nothing is sent', async () => {
    const { body } = await createTransaction(a, w.apiKey);
    const tx = { id: (await events().findOneByOrFail({ sessionId: body.session_id })).transactionId };
    const lost = envelope({ ...tx, sessionId: body.session_id }, 50);
    const deliveriesBefore = await deliveries().count();
    await assert.rejects(
      a.get(UnitOfWork).run(async (manager) => {
        await a.get(OutboxService).record(manager, lost);
        throw new Error('the state change failed');
      }),
      /the state change failed/,
    );
    assert.equal(await events().countBy({ eventId: lost.eventId }), 0);
    assert.equal(await events().countBy({ sessionId: body.session_id }), 1, 'only `created`');
    assert.equal(await deliveries().count(), deliveriesBefore);
    await a.get(DispatcherService).dispatchDue();
    assert.equal(hooksA.sent.has(lost.eventId), false);
  });

  it('a retryable failure keeps the delivery pending for the next delay of the schedule (contract §6)', async () => {
    hooksA.next = BUSY;
    const { body } = await createTransaction(a, w.apiKey, { webhook_url: HOOK });
    const event = await events().findOneByOrFail({ sessionId: body.session_id });
    const [delivery] = await settled([event.id]);
    assert.deepEqual([delivery.status, delivery.attempts, delivery.lastStatusCode], ['pending', 1, 503]);
    const wait = delivery.nextAttemptAt.getTime() - delivery.lastAttemptAt!.getTime();
    assert.ok(wait >= 4000 && wait <= 6000, `first retry about 5 s later, was ${wait} ms`);
    // Not due yet: a pass sends nothing.
    hooksA.next = OK;
    await a.get(DispatcherService).dispatchDue();
    assert.equal(hooksA.sent.get(event.eventId), 1);
  });

  it('two replicas dispatching the same backlog send every delivery exactly once', async () => {
    const { body } = await createTransaction(a, w.apiKey);
    const first = await events().findOneByOrFail({ sessionId: body.session_id });
    const tx = { id: first.transactionId, sessionId: body.session_id };
    const batch = Array.from({ length: 45 }, (_, i) => envelope(tx, 100 + i));
    await a.get(UnitOfWork).run((manager) => a.get(OutboxService).recordMany(manager, batch));
    await Promise.all([a.get(DispatcherService).dispatchDue(), b.get(DispatcherService).dispatchDue()]);
    const rowIds = (await events().findBy({ eventId: In(batch.map((e) => e.eventId)) })).map((e) => e.id);
    assert.equal(rowIds.length, 45);
    const rows = await settled(rowIds);
    assert.equal(rows.length, 45);
    assert.ok(rows.every((d) => d.status === 'delivered' && d.attempts === 1));
    for (const e of batch) {
      const times = (hooksA.sent.get(e.eventId) ?? 0) + (hooksB.sent.get(e.eventId) ?? 0);
      assert.equal(times, 1, `event ${e.sequence} sent ${times} times`);
    }
  });
});
