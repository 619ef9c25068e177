import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { ExpiryService } from '../../src/expiry/expiry.service';
import { adminEvents, dataSourceOf, eventually, FAST_DELIVERY_ENV } from '../events/event-helpers';
import { leaveCrashedAttempt } from '../factories/crashed-attempts';
import { CREATE_PATH, TEST_CARDS, testPayPath, TransactionDriver } from '../factories/transaction-states';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';

async function attemptRow(
  ds: DataSource,
  reference: string,
): Promise<{ result: string; response_code: string; settled: boolean }> {
  const [row] = await ds.query<{ result: string; response_code: string; settled_at: unknown }[]>(
    'SELECT result, response_code, settled_at FROM payment_attempts WHERE reference_number = ?',
    [reference],
  );
  return { result: row.result, response_code: row.response_code, settled: row.settled_at !== null };
}

async function heldBy(ds: DataSource, sessionId: string): Promise<string | null> {
  const [row] = await ds.query<{ attempt_in_flight: string | null }[]>(
    'SELECT attempt_in_flight FROM transactions WHERE session_id = ?',
    [sessionId],
  );
  return row.attempt_in_flight;
}

describe('payment attempts left unfinished are settled by asking the gateway (contract §17)', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({
      env: { ...FAST_DELIVERY_ENV, PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
    });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  const stateOf = async (sessionId: string) => String((await d.get(sessionId)).state);
  const settledTo = (sessionId: string, state: string) =>
    eventually(
      async () => ((await stateOf(sessionId)) === state ? true : undefined),
      10_000,
      `state ${state}`,
    );

  it('settles an approved charge whose request died before the answer was stored: paid, one event, one webhook', async () => {
    const tx = await d.create({ webhook_url: hook.url });
    const id = String(tx.session_id);
    const reference = await leaveCrashedAttempt(dataSourceOf(t), id, {
      gatewaySaw: 'success',
      stored: null,
      ageSeconds: 5,
    });
    await settledTo(id, 'paid');
    const after = await d.get(id);
    assert.equal(after.paid_amount, '86.000');
    assert.deepEqual(await attemptRow(dataSourceOf(t), reference), {
      result: 'success',
      response_code: '00',
      settled: true,
    });
    assert.equal(await heldBy(dataSourceOf(t), id), null);
    const events = await adminEvents(t, id);
    assert.deepEqual(
      events.map((e) => [e.event, e.sequence]),
      [
        ['created', 1],
        ['paid', 2],
      ],
    );
    const paid = await eventually(
      () => {
        const hooks = hook.received.filter((r) => r.json.session_id === id && r.json.event === 'paid');
        return Promise.resolve(hooks.length > 0 ? hooks : undefined);
      },
      10_000,
      'the paid webhook',
    );
    await sleep(1500); // two more reconciler runs: nothing is settled twice
    assert.equal(hook.received.filter((r) => r.json.session_id === id && r.json.event === 'paid').length, 1);
    assert.equal(paid[0].json.reference_number, reference);
    assert.equal((await adminEvents(t, id)).length, 2);
  });

  it('settles from the stored answer without asking the gateway again', async () => {
    const id = String((await d.create()).session_id);
    // The gateway has no record of it: asking would release the attempt instead of failing it.
    const reference = await leaveCrashedAttempt(dataSourceOf(t), id, {
      gatewaySaw: null,
      stored: 'declined',
      ageSeconds: 30,
    });
    await settledTo(id, 'failed');
    assert.deepEqual(await attemptRow(dataSourceOf(t), reference), {
      result: 'declined',
      response_code: '05',
      settled: true,
    });
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'failed'],
    );
  });

  it('frees a transaction whose attempt never reached the gateway, with no state change and no event', async () => {
    const id = String((await d.create()).session_id);
    const reference = await leaveCrashedAttempt(dataSourceOf(t), id, {
      gatewaySaw: null,
      stored: null,
      ageSeconds: 5,
    });
    await eventually(
      async () => ((await heldBy(dataSourceOf(t), id)) === null ? true : undefined),
      10_000,
      'release',
    );
    assert.equal(await stateOf(id), 'created');
    assert.deepEqual(await attemptRow(dataSourceOf(t), reference), {
      result: 'error',
      response_code: 'not-at-gateway',
      settled: true,
    });
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created'],
    );
    assert.equal((await d.pay(id, TEST_CARDS.success)).state, 'paid');
  });

  it('refuses a new attempt while another holds the transaction, then shows the state it settled to', async () => {
    const id = String((await d.create()).session_id);
    // A request still at the gateway (younger than the attempt timeout), which approves it.
    const reference = await leaveCrashedAttempt(dataSourceOf(t), id, {
      gatewaySaw: 'success',
      stored: null,
      ageSeconds: 0,
    });
    const second = await t
      .http()
      .post(testPayPath(id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success });
    assert.equal(second.status, 409);
    // It waited a moment for the first attempt; the reconciler settles that one within seconds.
    assert.ok(
      [
        'A payment attempt for this transaction is already in progress.',
        'A transaction in state "paid" can no longer be paid.',
      ].includes(String(second.body.detail)),
      String(second.body.detail),
    );
    await settledTo(id, 'paid');
    const third = await t
      .http()
      .post(testPayPath(id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success });
    assert.equal(third.status, 409);
    assert.deepEqual(third.body, { detail: 'A transaction in state "paid" can no longer be paid.' });
    const attempts = await dataSourceOf(t).query<{ reference_number: string }[]>(
      'SELECT reference_number FROM payment_attempts WHERE transaction_id = (SELECT id FROM transactions WHERE session_id = ?)',
      [id],
    );
    assert.deepEqual(
      attempts.map((a) => a.reference_number),
      [reference],
    );
  });
});

describe('a transaction held by a payment attempt (contract §17)', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  before(async () => {
    // No reconciler run during these tests: the attempt stays in flight.
    t = await startApp({
      env: { PAYMENT_RECONCILE_SECONDS: '3600', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '3600' },
    });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
  });
  after(() => t.close());

  it('cannot be updated, canceled or expired until the attempt settles', async () => {
    const id = String((await d.create({ expiration_time: '00:00:01' })).session_id);
    await leaveCrashedAttempt(dataSourceOf(t), id, { gatewaySaw: null, stored: null, ageSeconds: 0 });
    const update = await t
      .http()
      .patch(`${CREATE_PATH}${id}/`)
      .set('Authorization', s.apiKey)
      .send({ amount: '1.000' })
      .expect(409);
    assert.deepEqual(update.body, {
      detail: 'A payment attempt for this transaction is in progress; retry shortly.',
    });
    const cancel = await d.operate({ operation: 'cancel', session_id: id });
    assert.deepEqual(cancel, {
      status: 409,
      body: {
        detail: 'A payment attempt for this transaction is in progress; retry shortly.',
        operation: 'cancel',
        result: 'failed',
      },
    });
    await sleep(1100); // past its deadline
    await t.app.get(ExpiryService).sweep();
    const now = await d.get(id);
    assert.equal(now.state, 'created');
    assert.equal(now.amount, '86.000');
  });

  it('settles an overdue attempt before a new one: the customer sees what the first one did', async () => {
    const id = String((await d.create()).session_id);
    // Started two hours ago, past any attempt timeout: its request is long dead.
    await leaveCrashedAttempt(dataSourceOf(t), id, { gatewaySaw: 'success', stored: null, ageSeconds: 7200 });
    const res = await t
      .http()
      .post(testPayPath(id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { detail: 'A transaction in state "paid" can no longer be paid.' });
    assert.equal((await d.get(id)).state, 'paid');
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });
});

describe('a restarted replica finishes the payments a crashed one left (contract §17)', () => {
  it('settles them on its first reconciler run', async () => {
    const first = await startApp({ env: { PAYMENT_RECONCILE_SECONDS: '3600' } });
    const s = await seedBasics(first);
    const d = new TransactionDriver(first, s.apiKey);
    const approved = String((await d.create()).session_id);
    const declined = String((await d.create()).session_id);
    await leaveCrashedAttempt(dataSourceOf(first), approved, {
      gatewaySaw: 'success',
      stored: null,
      ageSeconds: 600,
    });
    await leaveCrashedAttempt(dataSourceOf(first), declined, {
      gatewaySaw: 'declined',
      stored: 'declined',
      ageSeconds: 600,
    });
    await first.app.close(); // the crashed replica is gone; its database stays

    const second = await startApp({ db: first.db, env: { PAYMENT_RECONCILE_SECONDS: '1' } });
    try {
      const d2 = new TransactionDriver(second, s.apiKey);
      await eventually(
        async () =>
          (await d2.get(approved)).state === 'paid' && (await d2.get(declined)).state === 'failed'
            ? true
            : undefined,
        10_000,
        'both settled',
      );
      assert.deepEqual(
        (await adminEvents(second, approved)).map((e) => e.event),
        ['created', 'paid'],
      );
    } finally {
      await second.close();
      await first.db.drop();
    }
  });
});
