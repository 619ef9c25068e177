import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import type { TransactionState } from '../../src/transactions/transaction-state';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';
import { decodeMail, SmtpSink } from '../sinks/smtp-sink';
import { AdminEvent, FAST_DELIVERY_ENV, settled } from './event-helpers';

/** The operation behind each state the driver reaches with the operations API. */
const OPERATION_OF: Partial<Record<TransactionState, string>> = {
  canceled: 'cancel',
  expired: 'expire',
  captured: 'capture',
  voided: 'void',
  refunded: 'refund',
};
const ALL_EVENTS = [
  'created',
  'paid',
  'canceled',
  'failed',
  'expired',
  'authorized',
  'voided',
  'refunded',
  'captured',
];

describe('every §5 transition emits exactly one event, delivered on each channel asked for', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let hook: HttpReceiver;
  let smtp: SmtpSink;
  let sms: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    smtp = await SmtpSink.start();
    sms = await HttpReceiver.start();
    t = await startApp({ env: { ...FAST_DELIVERY_ENV, SMTP_URL: smtp.url, SMS_PROVIDER_URL: sms.url } });
    s = await seedBasics(t);
    await t.app
      .get(GatewaysService)
      .create(gatewayInput({ code: 'sandbox-auth', name: 'Sandbox authorize', operation: 'authorize' }));
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await t.close();
    await Promise.all([hook.stop(), smtp.stop(), sms.stop()]);
  });

  const create = () => ({
    webhook_url: hook.url,
    customer_email: 'customer@example.com',
    customer_phone: '+96550000000',
    notifications: { email: ALL_EVENTS, sms: ALL_EVENTS },
  });

  /** The events of a transaction once delivered, checked channel by channel. */
  async function delivered(sessionId: string, expected: string[]): Promise<AdminEvent[]> {
    const events = await settled(t, sessionId);
    assert.deepEqual(
      events.map((e) => [e.sequence, e.event]),
      expected.map((event, i) => [i + 1, event]),
    );
    for (const event of events) {
      assert.deepEqual(
        event.deliveries.map((x) => `${x.channel}:${x.status}:${x.attempts}`).sort(),
        ['email:delivered:1', 'sms:delivered:1', 'webhook:delivered:1'],
        event.event,
      );
    }
    const hooks = hook.received.filter((r) => r.json.session_id === sessionId);
    assert.deepEqual(
      hooks.map((r) => [r.json.sequence, r.json.event]).sort((a, b) => Number(a[0]) - Number(b[0])),
      expected.map((event, i) => [i + 1, event]),
    );
    return events;
  }

  const paths: [TransactionState, string[]][] = [
    ['paid', ['created', 'paid']],
    ['failed', ['created', 'failed']],
    ['error', ['created', 'failed']],
    ['canceled', ['created', 'canceled']],
    ['expired', ['created', 'expired']],
    ['authorized', ['created', 'authorized']],
    ['captured', ['created', 'authorized', 'captured']],
    ['voided', ['created', 'authorized', 'voided']],
    ['refunded', ['created', 'paid', 'refunded']],
  ];
  for (const [state, events] of paths) {
    it(`${state}: ${events.join(' → ')}`, async () => {
      const sessionId = await d.inState(state, create());
      await delivered(sessionId, events);
      const last = hook.received.filter(
        (r) => r.json.session_id === sessionId && r.json.sequence === events.length,
      );
      assert.equal(last.length, 1);
      assert.equal(last[0].json.state, state);
      const operation = OPERATION_OF[state];
      assert.equal(last[0].json.operation, operation);
      if (operation) assert.equal(last[0].json.operation_amount, last[0].json.amount);
      else assert.equal(last[0].json.operation_amount, undefined);
    });
  }

  it('error sends the failed notification and a webhook with state error', async () => {
    const mailsBefore = smtp.mails.length;
    const sessionId = await d.inState('error', create());
    await delivered(sessionId, ['created', 'failed']);
    const last = hook.received.find((r) => r.json.session_id === sessionId && r.json.event === 'failed')!;
    assert.equal(last.json.state, 'error');
    assert.ok(String(last.json.reference_number).length > 0);
    const subjects = smtp.mails.slice(mailsBefore).map((m) => decodeMail(m.raw).subject);
    assert.ok(subjects.includes('Payment failed'), subjects.join(' | '));
  });

  it('a decline then a successful retry: created → failed → paid', async () => {
    const tx = await d.create(create());
    const sessionId = String(tx.session_id);
    await d.pay(sessionId, TEST_CARDS.declined);
    await d.pay(sessionId, TEST_CARDS.success);
    await delivered(sessionId, ['created', 'failed', 'paid']);
  });

  it('operation events carry operation and operation_amount; a partial refund keeps the state', async () => {
    const sessionId = await d.inState('paid', { ...create(), amount: '86' });
    const res = await d.operate({ operation: 'refund', session_id: sessionId, amount: '10' });
    assert.equal(res.status, 200);
    await delivered(sessionId, ['created', 'paid', 'refunded']);
    const refund = hook.received.find((r) => r.json.session_id === sessionId && r.json.event === 'refunded')!;
    assert.equal(refund.json.state, 'paid');
    assert.equal(refund.json.operation, 'refund');
    assert.equal(refund.json.operation_amount, '10.000');
    assert.equal(refund.json.amount, '86.000');
    assert.equal(refund.json.refunded_amount, '10.000');
    const paid = hook.received.find((r) => r.json.session_id === sessionId && r.json.event === 'paid')!;
    assert.equal(paid.json.operation, undefined);
  });

  it('a refused operation emits nothing', async () => {
    const sessionId = await d.inState('canceled', create());
    const res = await d.operate({ operation: 'refund', session_id: sessionId });
    assert.equal(res.status, 400);
    await delivered(sessionId, ['created', 'canceled']);
  });
});
