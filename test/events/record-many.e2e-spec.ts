import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OutboxEvent } from '../../src/events/event.entity';
import { Delivery } from '../../src/events/delivery.entity';
import { TransactionEvents } from '../../src/transactions/events/transaction-events';
import { Transaction } from '../../src/transactions/transaction.entity';
import { insertDueTransactions } from '../factories/due-transactions';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, dataSourceOf, unitOf } from './event-helpers';

const BODY = {
  customer_email: 'customer@example.com',
  customer_phone: '+96550000000',
  customer_first_name: 'Fatima',
  email_recipients: ['accounts@example.com'],
  notifications: { email: ['expired'], sms: ['expired'] },
  webhook_url: 'https://hooks.example.com/checkout',
  billing_address: {
    line1: 'Street 1',
    city: 'Kuwait City',
    state: 'Capital',
    country: 'KW',
    postal_code: '12345',
  },
  extra: { cart: 7 },
};

/** TransactionEvents.recordMany: the bulk form of record, used by the expiry job. */
describe('outbox: recording one event for many transactions at once', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const load = (sessionId: string) =>
    dataSourceOf(t).getRepository(Transaction).findOneByOrFail({ sessionId });
  const eventsOf = (sessionId: string) =>
    dataSourceOf(t)
      .getRepository(OutboxEvent)
      .find({ where: { sessionId }, order: { sequence: 'ASC' } });
  const deliveriesOf = (event: OutboxEvent) =>
    dataSourceOf(t)
      .getRepository(Delivery)
      .find({ where: { eventRowId: event.id }, order: { id: 'ASC' } });

  it('writes the same event row and deliveries as record does', async () => {
    const one = await createTransaction(t, s, BODY);
    const many = await createTransaction(t, s, BODY);
    const events = t.app.get(TransactionEvents);
    const details = { operation: 'expire', result: 'success' };
    // Read before the unit: inside it, only its own manager may be used (contract §17).
    const [oneRow, manyRow] = [await load(one), await load(many)];
    await unitOf(t).run(async (m) => events.record(m, oneRow, 'expired', details));
    await unitOf(t).run(async (m) => events.recordMany(m, [manyRow], 'expired', details));

    const [single] = (await eventsOf(one)).slice(-1);
    const [bulk] = (await eventsOf(many)).slice(-1);
    assert.equal(single.sequence, 2);
    assert.equal(bulk.sequence, 2);
    assert.equal(bulk.event, 'expired');
    const comparable = (e: OutboxEvent) => {
      const { event_id: _id, session_id: _session, timestamp_utc: _at, ...rest } = e.payload;
      const { checkout_url: _url, ...context } = e.context;
      return { payload: rest, context };
    };
    assert.deepEqual(comparable(bulk), comparable(single));
    assert.equal(bulk.payload.session_id, many);
    assert.equal(bulk.payload.event_id, bulk.eventId);
    assert.equal(bulk.payload.amount, '86.000');
    assert.equal(bulk.payload.operation, 'expire');
    assert.ok(bulk.context.checkout_url.endsWith(`session_id=${many}`));
    assert.notEqual(bulk.eventId, single.eventId);

    // The webhook is being sent meanwhile (its status moves on): compare what was written for it.
    const shape = (d: Delivery) =>
      d.channel === 'webhook'
        ? [d.channel, d.target]
        : [d.channel, d.target, d.status, d.attempts, d.lastError];
    const singleDeliveries = (await deliveriesOf(single)).map(shape);
    assert.deepEqual(singleDeliveries, [
      ['webhook', BODY.webhook_url],
      ['email', 'customer@example.com', 'skipped', 0, 'No e-mail transport: SMTP_URL is not configured.'],
      ['email', 'accounts@example.com', 'skipped', 0, 'No e-mail transport: SMTP_URL is not configured.'],
      ['sms', '+96550000000', 'skipped', 0, 'No SMS transport: SMS_PROVIDER_URL is not configured.'],
    ]);
    assert.deepEqual((await deliveriesOf(bulk)).map(shape), singleDeliveries);
  });

  it('numbers each transaction on from its own last event and formats amounts per currency', async () => {
    const ids = [
      await createTransaction(t, s, { amount: '86.5', currency_code: 'KWD' }),
      await createTransaction(t, s, { amount: '7', currency_code: 'USD' }),
      await createTransaction(t, s, { amount: '1500', currency_code: 'JPY' }),
    ];
    const events = t.app.get(TransactionEvents);
    for (let round = 0; round < 2; round++) {
      const rows = await Promise.all(ids.map(load));
      await unitOf(t).run(async (m) => events.recordMany(m, rows, 'expired'));
    }
    const amounts = ['86.500', '7.00', '1500'];
    for (const [i, id] of ids.entries()) {
      const events = await eventsOf(id);
      assert.deepEqual(
        events.map((e) => [e.event, e.sequence]),
        [
          ['created', 1],
          ['expired', 2],
          ['expired', 3],
        ],
      );
      assert.equal(events[2].payload.amount, amounts[i]);
      assert.equal(events[2].payload.sequence, 3);
      // No delivery asked for: none written.
      assert.deepEqual(await deliveriesOf(events[2]), []);
    }
  });

  it('writes nothing for an empty list, and handles more rows than one INSERT takes', async () => {
    const ds = dataSourceOf(t);
    const events = t.app.get(TransactionEvents);
    const before = await ds.getRepository(OutboxEvent).count();
    await unitOf(t).run((m) => events.recordMany(m, [], 'expired'));
    assert.equal(await ds.getRepository(OutboxEvent).count(), before);

    await insertDueTransactions(ds, 1001, {
      overrides: { customerEmail: 'bulk@example.com', notifications: { email: ['expired'] } },
    });
    const rows = await ds.getRepository(Transaction).find({ where: { customerEmail: 'bulk@example.com' } });
    assert.equal(rows.length, 1001);
    await unitOf(t).run((m) => events.recordMany(m, rows, 'expired'));
    const written = await ds.query<{ n: string | number; seqs: string | number; txs: string | number }[]>(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT e.sequence) AS seqs, COUNT(DISTINCT e.transaction_id) AS txs
         FROM events e JOIN transactions t ON t.id = e.transaction_id
        WHERE t.customer_email = 'bulk@example.com'`,
    );
    assert.deepEqual(
      [Number(written[0].n), Number(written[0].seqs), Number(written[0].txs)],
      [1001, 1, 1001],
    );
    // One e-mail delivery per event, each pointing at its own event.
    const perEvent = await ds.query<{ n: string | number }[]>(
      `SELECT COUNT(d.id) AS n FROM events e
         JOIN transactions t ON t.id = e.transaction_id
         LEFT JOIN deliveries d ON d.event_id = e.id
        WHERE t.customer_email = 'bulk@example.com' GROUP BY e.id`,
    );
    assert.equal(perEvent.length, 1001);
    assert.ok(perEvent.every((r) => Number(r.n) === 1));
  });
});
