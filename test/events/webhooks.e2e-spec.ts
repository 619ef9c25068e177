import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { TransactionEvents } from '../../src/transactions/events/transaction-events';
import { Transaction } from '../../src/transactions/transaction.entity';
import { payloadSignature, standardWebhookSecret } from '../../src/events/webhooks/signature';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import {
  adminEvents,
  createTransaction,
  eventually,
  FAST_DELIVERY_ENV,
  settled,
  SIGNING_KEY,
  transition,
  unitOf,
} from './event-helpers';

describe('webhooks', () => {
  let t: TestApp;
  let s: Seeded;
  const receivers: HttpReceiver[] = [];
  const receiver = async (...args: Parameters<typeof HttpReceiver.start>) => {
    const r = await HttpReceiver.start(...args);
    receivers.push(r);
    return r;
  };
  before(async () => {
    t = await startApp({ env: FAST_DELIVERY_ENV });
    s = await seedBasics(t);
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  after(() => t.close());

  it('delivers created once, with the §6 payload, a signature and Standard Webhooks headers', async () => {
    const hook = await receiver();
    const sessionId = await createTransaction(t, s, {
      webhook_url: hook.url,
      order_no: 'ORD-1',
      customer_first_name: 'example-customer',
      customer_email: 'c@example.com',
      billing_address: {
        line1: 'Street 1',
        city: 'Kuwait City',
        state: 'Capital',
        country: 'KW',
        postal_code: '12345',
      },
      extra: { cart: 7 },
    });
    const [event] = await settled(t, sessionId);
    assert.equal(hook.received.length, 1);
    const { json, headers, body } = hook.received[0];
    assert.equal(json.event, 'created');
    assert.equal(json.event_id, event.event_id);
    assert.equal(json.sequence, 1);
    assert.equal(json.session_id, sessionId);
    assert.equal(json.order_no, 'ORD-1');
    assert.equal(json.state, 'created');
    assert.equal(json.amount, '86.000');
    assert.equal(json.currency_code, 'KWD');
    assert.equal(json.fee, '0.000');
    assert.equal(json.gateway_account, 'sandbox');
    assert.equal(json.gateway_name, 'Sandbox card');
    assert.equal(json.is_sandbox, true);
    assert.equal(json.paid_amount, '0.000');
    assert.equal(json.customer_address_city, 'Kuwait City');
    assert.equal(json.customer_address_country, 'KW');
    assert.equal(json.customer_address_line2, '');
    assert.deepEqual(json.extra, { cart: 7 });
    assert.match(String(json.timestamp_utc), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.equal(json.operation, undefined);
    const { signature, ...unsigned } = json;
    assert.equal(signature, payloadSignature(unsigned, SIGNING_KEY));
    assert.match(String(signature), /^[0-9a-f]{64}$/);
    assert.equal(headers['signature'], signature);
    assert.equal(headers['webhook-id'], event.event_id);
    const verified = new Webhook(standardWebhookSecret(SIGNING_KEY)).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    assert.deepEqual(verified, json);
    assert.throws(() =>
      new Webhook(standardWebhookSecret('another-key')).verify(body, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    );
    const [delivery] = event.deliveries;
    assert.equal(delivery.channel, 'webhook');
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.last_status_code, 200);
  });

  it('retries a receiver that answers 500 twice and delivers on the third try, logging each attempt', async () => {
    const hook = await receiver((_, i) => (i < 2 ? { status: 500, body: 'boom' } : { status: 200 }));
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    const [event] = await settled(t, sessionId);
    assert.equal(hook.received.length, 3);
    assert.ok(hook.received.every((r) => r.json.event_id === event.event_id));
    const [delivery] = event.deliveries;
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 3);
    assert.deepEqual(
      delivery.attempt_log.map((a) => a.status_code),
      [500, 500, 200],
    );
    assert.equal(delivery.attempt_log[0].response_body, 'boom');
    assert.equal(delivery.attempt_log[0].error, 'HTTP 500');
    // growing delays: 100 ms, then 200 ms
    const gaps = [hook.received[1].at - hook.received[0].at, hook.received[2].at - hook.received[1].at];
    assert.ok(gaps[0] >= 90, `first retry after ${gaps[0]} ms`);
    assert.ok(gaps[1] >= 190, `second retry after ${gaps[1]} ms`);
  });

  it('retries 429, gives up on another 4xx after one attempt, and keeps ≤ 1 KB of the answer', async () => {
    const tooMany = await receiver((_, i) => (i === 0 ? { status: 429 } : { status: 204 }));
    const rejecting = await receiver(() => ({ status: 400, body: 'x'.repeat(5000) }));
    const a = await createTransaction(t, s, { webhook_url: tooMany.url });
    const b = await createTransaction(t, s, { webhook_url: rejecting.url });
    const [[eventA], [eventB]] = await Promise.all([settled(t, a), settled(t, b)]);
    assert.equal(eventA.deliveries[0].status, 'delivered');
    assert.equal(eventA.deliveries[0].attempts, 2);
    assert.equal(eventB.deliveries[0].status, 'failed');
    assert.equal(eventB.deliveries[0].attempts, 1);
    assert.equal(eventB.deliveries[0].last_status_code, 400);
    assert.equal(eventB.deliveries[0].attempt_log[0].response_body?.length, 1024);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(rejecting.received.length, 1);
  });

  it('does not follow a redirect', async () => {
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 302, body: '' }));
    redirecting.responder = () => ({ status: 307, body: target.url });
    const sessionId = await createTransaction(t, s, { webhook_url: redirecting.url });
    const [event] = await settled(t, sessionId);
    assert.equal(event.deliveries[0].status, 'failed');
    assert.match(String(event.deliveries[0].last_error), /redirect/);
    assert.equal(target.received.length, 0);
  });

  it('delivers to a receiver that was down when the event was emitted once it is back', async () => {
    const hook = await receiver();
    const port = hook.port;
    await hook.stop();
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    const failedOnce = await eventually(async () => {
      const [event] = await adminEvents(t, sessionId);
      return event.deliveries[0].attempts >= 1 ? event.deliveries[0] : undefined;
    });
    assert.equal(failedOnce.status, 'pending');
    assert.match(String(failedOnce.last_error), /ECONNREFUSED/);
    const back = await receiver(() => ({ status: 200 }), port);
    await back.waitFor(1);
    const [event] = await settled(t, sessionId);
    assert.equal(event.deliveries[0].status, 'delivered');
    assert.equal(back.received.length, 1);
  });

  it('gives each event of a transaction the next sequence number, with operation fields on operations', async () => {
    const hook = await receiver();
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url, amount: '10' });
    await hook.waitFor(1);
    await transition(
      t,
      sessionId,
      'paid',
      'paid',
      { referenceNumber: 'REF-1', result: 'success' },
      { paidAmount: '10' },
    );
    await transition(
      t,
      sessionId,
      'refunded',
      'refunded',
      { operation: 'refund', operationAmount: '4', result: 'success' },
      { refundedAmount: '4' },
    );
    await hook.waitFor(3);
    const bySequence = [...hook.received].sort((x, y) => Number(x.json.sequence) - Number(y.json.sequence));
    assert.deepEqual(
      bySequence.map((r) => [r.json.sequence, r.json.event, r.json.state]),
      [
        [1, 'created', 'created'],
        [2, 'paid', 'paid'],
        [3, 'refunded', 'refunded'],
      ],
    );
    assert.equal(bySequence[1].json.reference_number, 'REF-1');
    assert.equal(bySequence[1].json.paid_amount, '10.000');
    assert.equal(bySequence[1].json.operation, undefined);
    assert.equal(bySequence[2].json.operation, 'refund');
    assert.equal(bySequence[2].json.operation_amount, '4.000');
    assert.equal(bySequence[2].json.amount, '10.000');
    assert.equal(bySequence[2].json.refunded_amount, '4.000');
    const events = await settled(t, sessionId);
    assert.deepEqual(
      events.map((e) => e.sequence),
      [1, 2, 3],
    );
  });

  it('records no event when the state change is rolled back', async () => {
    const hook = await receiver();
    const sessionId = await createTransaction(t, s, { webhook_url: hook.url });
    await hook.waitFor(1);
    await assert.rejects(
      unitOf(t).run(async (manager) => {
        const tx = await manager.getRepository(Transaction).findOneByOrFail({ sessionId });
        await manager.getRepository(Transaction).update({ id: tx.id }, { state: 'paid' });
        await t.app.get(TransactionEvents).record(manager, { ...tx, state: 'paid' }, 'paid');
        throw new Error('the state change failed after its event was recorded');
      }),
      /state change failed/,
    );
    const events = await adminEvents(t, sessionId);
    assert.deepEqual(
      events.map((e) => e.event),
      ['created'],
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(hook.received.length, 1);
    // the rolled-back event did not use up a sequence number
    await transition(t, sessionId, 'canceled', 'canceled', { operation: 'cancel' });
    await hook.waitFor(2);
    assert.equal(hook.received[1].json.sequence, 2);
    assert.equal(hook.received[1].json.event, 'canceled');
  });
});

describe('webhooks with a short timeout and a 1 s retry window', () => {
  // One app per suite: apps share passport's strategy registry, so two live apps in one process
  // would answer each other's credentials.
  let t: TestApp;
  let s: Seeded;
  const receivers: HttpReceiver[] = [];
  before(async () => {
    t = await startApp({
      env: {
        ...FAST_DELIVERY_ENV,
        WEBHOOK_TIMEOUT_MS: '300',
        DISPATCH_LEASE_MS: '2000',
        WEBHOOK_RETRY_SCHEDULE: '400ms',
        WEBHOOK_MAX_AGE_SECONDS: '1',
      },
    });
    s = await seedBasics(t);
  });
  after(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await t.close();
  });

  it('retries a receiver that times out', async () => {
    const slow = await HttpReceiver.start((_, i) => (i === 0 ? 'hang' : { status: 200 }));
    receivers.push(slow);
    const sessionId = await createTransaction(t, s, { webhook_url: slow.url });
    const [event] = await settled(t, sessionId);
    const [delivery] = event.deliveries;
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 2);
    assert.match(String(delivery.attempt_log[0].error), /Timed out after 300 ms/);
    assert.equal(delivery.attempt_log[0].status_code, null);
    assert.ok(delivery.attempt_log[0].duration_ms >= 290, `took ${delivery.attempt_log[0].duration_ms} ms`);
  });

  it('gives up once the retry window (WEBHOOK_MAX_AGE_SECONDS) has passed', async () => {
    const down = await HttpReceiver.start(() => ({ status: 503 }));
    receivers.push(down);
    const sessionId = await createTransaction(t, s, { webhook_url: down.url });
    const [event] = await settled(t, sessionId);
    const [delivery] = event.deliveries;
    assert.equal(delivery.status, 'failed');
    // attempts ~0.4 s apart; the one after the second or third would fall past the 1 s window
    // (how many fit depends on how quickly the first one went out on a busy machine)
    assert.ok(delivery.attempts === 2 || delivery.attempts === 3, `attempts: ${delivery.attempts}`);
    assert.equal(down.received.length, delivery.attempts);
    const lastTry = delivery.attempt_log[delivery.attempt_log.length - 1].attempted_at;
    assert.ok(
      Date.parse(lastTry) + 400 > Date.parse(event.created_at) + 1000,
      'gave up only when the next try was too late',
    );
    assert.equal(delivery.last_status_code, 503);
  });
});

describe('webhooks without a signing key', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    const { WEBHOOK_SIGNING_KEY: _unused, ...env } = FAST_DELIVERY_ENV;
    t = await startApp({ env });
    s = await seedBasics(t);
    hook = await HttpReceiver.start();
  });
  after(async () => {
    await hook.stop();
    await t.close();
  });

  it('go out unsigned: empty signature, no signature headers', async () => {
    await createTransaction(t, s, { webhook_url: hook.url });
    await hook.waitFor(1);
    const { json, headers } = hook.received[0];
    assert.equal(json.signature, '');
    assert.equal(headers['signature'], undefined);
    assert.equal(headers['webhook-signature'], undefined);
    assert.ok(headers['webhook-id']);
  });
});
