import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { payloadSignature } from '../../src/events/webhooks/signature';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { UsersService } from '../../src/auth/users/users.service';
import {
  adminEvents,
  dataSourceOf,
  eventually,
  FAST_DELIVERY_ENV,
  SIGNING_KEY,
} from '../events/event-helpers';
import { leaveCrashedAttempt } from '../factories/crashed-attempts';
import { TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import { basicAuth, gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';

const INQUIRY = '/b/pbl/v2/inquiry/';

/** contract §16: `POST /b/pbl/v2/inquiry/`. */
describe('inquiry', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let hook: HttpReceiver;
  let other: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    other = await HttpReceiver.start();
    // The reconciler stays out of the way: only the inquiry settles attempts here.
    t = await startApp({ env: { ...FAST_DELIVERY_ENV, PAYMENT_RECONCILE_SECONDS: '3600' } });
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(gatewayInput({ code: 'other-sandbox', name: 'Other sandbox' }));
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await t.close();
    await hook.stop();
    await other.stop();
  });

  const inquire = (body: object, auth: string | null = s.apiKey) => {
    const req = t.http().post(INQUIRY);
    if (auth) req.set('Authorization', auth);
    return req.send(body);
  };
  const stateOf = async (sessionId: string) => String((await d.get(sessionId)).state);

  it('answers the signed payload of the latest event, by session_id or by order_no', async () => {
    const id = String((await d.create({ order_no: 'INQ-1' })).session_id);
    await d.pay(id, TEST_CARDS.success);
    const bySession = await inquire({ session_id: id }).expect(200);
    assert.equal(bySession.body.event, 'paid');
    assert.equal(bySession.body.state, 'paid');
    assert.equal(bySession.body.sequence, 2);
    assert.equal(bySession.body.paid_amount, '86.000');
    const { signature, ...unsigned } = bySession.body as Record<string, unknown>;
    assert.equal(signature, payloadSignature(unsigned, SIGNING_KEY));
    const byOrder = await inquire({ order_no: 'INQ-1' }).expect(200);
    assert.deepEqual(byOrder.body, bySession.body);
  });

  it('settles an attempt the gateway charged but whose request never stored the answer', async () => {
    const id = String((await d.create()).session_id);
    const reference = await leaveCrashedAttempt(dataSourceOf(t), id, {
      gatewaySaw: 'success',
      stored: null,
      ageSeconds: 0,
    });
    assert.equal(await stateOf(id), 'created');
    const res = await inquire({ session_id: id }).expect(200);
    assert.equal(res.body.event, 'paid');
    assert.equal(res.body.state, 'paid');
    assert.equal(res.body.reference_number, reference);
    assert.equal(res.body.message, 'Approved');
    assert.equal(await stateOf(id), 'paid');
    // Asked again: nothing is settled twice.
    await inquire({ session_id: id }).expect(200);
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });

  it('settles from an answer stored before the crash (a decline)', async () => {
    const id = String((await d.create()).session_id);
    await leaveCrashedAttempt(dataSourceOf(t), id, { gatewaySaw: null, stored: 'declined', ageSeconds: 0 });
    const res = await inquire({ session_id: id }).expect(200);
    assert.equal(res.body.event, 'failed');
    assert.equal(res.body.state, 'failed');
  });

  it('leaves a young attempt the gateway has not seen yet in flight: it may still be on its way', async () => {
    const id = String((await d.create()).session_id);
    const reference = await leaveCrashedAttempt(dataSourceOf(t), id, {
      gatewaySaw: null,
      stored: null,
      ageSeconds: 0,
    });
    const res = await inquire({ session_id: id }).expect(200);
    assert.equal(res.body.state, 'created');
    const [row] = await dataSourceOf(t).query<{ attempt_in_flight: string | null }[]>(
      'SELECT attempt_in_flight FROM transactions WHERE session_id = ?',
      [id],
    );
    assert.equal(row.attempt_in_flight, reference);
  });

  it('releases an overdue attempt the gateway never received: nothing charged, no event', async () => {
    const id = String((await d.create()).session_id);
    await leaveCrashedAttempt(dataSourceOf(t), id, { gatewaySaw: null, stored: null, ageSeconds: 3600 });
    const res = await inquire({ session_id: id }).expect(200);
    assert.equal(res.body.event, 'created');
    const [row] = await dataSourceOf(t).query<{ attempt_in_flight: string | null }[]>(
      'SELECT attempt_in_flight FROM transactions WHERE session_id = ?',
      [id],
    );
    assert.equal(row.attempt_in_flight, null);
  });

  it('notify_webhook_url delivers the payload to the stored webhook_url, or to the one sent', async () => {
    const id = String((await d.create({ webhook_url: hook.url })).session_id);
    const created = await eventually(
      () => Promise.resolve(hook.received.find((r) => r.json.session_id === id)),
      10_000,
      'the created webhook',
    );
    const res = await inquire({ session_id: id, notify_webhook_url: true }).expect(200);
    const again = await eventually(
      () => {
        const all = hook.received.filter((r) => r.json.session_id === id);
        return Promise.resolve(all.length === 2 ? all[1] : undefined);
      },
      10_000,
      'the notification',
    );
    assert.equal(again.json.event_id, created.json.event_id, 'the same event: a receiver drops the repeat');
    assert.deepEqual(again.json, res.body);

    await inquire({ session_id: id, notify_webhook_url: true, webhook_url: other.url }).expect(200);
    await eventually(
      () => Promise.resolve(other.received.find((r) => r.json.session_id === id)),
      10_000,
      'the notification to the URL sent',
    );
    await inquire({ session_id: id, webhook_url: other.url }).expect(200);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(
      other.received.filter((r) => r.json.session_id === id).length,
      1,
      'without notify_webhook_url nothing is sent',
    );
  });

  it('notify without any webhook_url is a field error', async () => {
    const id = String((await d.create()).session_id);
    const res = await inquire({ session_id: id, notify_webhook_url: true }).expect(400);
    assert.deepEqual(res.body, { webhook_url: ['The transaction has no webhook_url: send one to notify.'] });
  });

  it('unknown transactions: 404 with result failed', async () => {
    const unknown = await inquire({ session_id: 'f'.repeat(40) }).expect(404);
    assert.deepEqual(unknown.body, { detail: 'Not found.', result: 'failed' });
    const malformed = await inquire({ session_id: 'nope' }).expect(404);
    assert.deepEqual(malformed.body, { detail: 'Not found.', result: 'failed' });
    const noOrder = await inquire({ order_no: 'never-used' }).expect(404);
    assert.deepEqual(noOrder.body, { detail: 'Not found.', result: 'failed' });
  });

  it('bad input: field errors, nothing sent', async () => {
    assert.deepEqual((await inquire({}).expect(400)).body, {
      session_id: ['Send session_id or order_no to name the transaction.'],
    });
    const id = String((await d.create({ webhook_url: hook.url })).session_id);
    const bad = await inquire({
      session_id: id,
      notify_webhook_url: 'maybe',
      webhook_url: 'not a url',
    }).expect(400);
    assert.deepEqual(Object.keys(bad.body as object).sort(), ['notify_webhook_url', 'webhook_url']);
    const long = await inquire({ session_id: 'a'.repeat(41) }).expect(400);
    assert.ok(Array.isArray(long.body.session_id));
    const wrongType = await inquire({ order_no: 7 }).expect(400);
    assert.ok(Array.isArray(wrongType.body.order_no));
  });

  it('Basic: only for users allowed the gateway; no credentials: 401 with result failed', async () => {
    const id = String((await d.create({ pg_codes: ['other-sandbox'] })).session_id);
    // contract §3: a transaction on a gateway the user may not use answers exactly as an unknown one.
    const denied = await inquire({ session_id: id }, s.merchant).expect(404);
    assert.deepEqual(denied.body, { detail: 'Not found.', result: 'failed' });
    await t.app
      .get(UsersService)
      .create({ username: 'other-user', password: 'other-pass-12', gatewayCodes: ['other-sandbox'] });
    await inquire({ session_id: id }, basicAuth('other-user', 'other-pass-12')).expect(200);
    const anonymous = await inquire({ session_id: id }, null).expect(401);
    assert.equal(anonymous.body.result, 'failed');
    assert.equal(typeof anonymous.body.detail, 'string');
  });
});

describe('inquiry without private webhook targets allowed', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  it('refuses to notify a private or local address', async () => {
    const id = String((await new TransactionDriver(t, s.apiKey).create()).session_id);
    const res = await t
      .http()
      .post(INQUIRY)
      .set('Authorization', s.apiKey)
      .send({ session_id: id, notify_webhook_url: true, webhook_url: 'http://127.0.0.1:9/hook' })
      .expect(400);
    assert.deepEqual(res.body, {
      webhook_url: [
        'This URL points at a private or local address, which is not allowed unless the service runs with WEBHOOK_ALLOW_PRIVATE=true (local development; set it and restart).',
      ],
    });
  });
});
