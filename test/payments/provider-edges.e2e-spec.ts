import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { CardsRepository } from '../../src/cards/cards.repository';
import { GatewaysService } from '../../src/gateways/gateways.service';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { AttemptSettlement } from '../../src/payments/attempt-settlement';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import { MpgsDriver } from '../../src/payments/drivers/mpgs/mpgs-driver';
import { ExpiryService } from '../../src/expiry/expiry.service';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { adminEvents, dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { adminAuth, gatewayInput, seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { SCRIPTED_SECRET, ScriptedProvider } from './scripted-provider';

const RECONCILIATION = '/b/checkout/v1/admin/reconciliation/';

interface AttemptRow {
  reference_number: string;
  result: string;
  left_at: unknown;
  settled_at: unknown;
  reconciliation: string | null;
}

/**
 * Contract §20.1's rules of the pay path, which hold for every driver: a provider session the
 * customer left is not closed while it can still take money; a payment taken on it later is recorded
 * paid, once; picking the method again never answers 409; a lost charge answer stays pending, asked
 * and never guessed; unauthenticated routes make at most 3 provider calls for 100 identical requests;
 * every request answers within 10 s when the provider hangs; the reconciliation report and its metric.
 * The provider here is scripted (./scripted-provider.ts) so each situation can be set exactly; each
 * real driver meets the same rules against its own simulator (test/payments/{stripe,mpgs,knet}-*).
 */
describe('contract §20.1: the pay path at the providers’ edges', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let ds: DataSource;
  const provider = new ScriptedProvider('mpgs');

  before(async () => {
    t = await startApp({
      // The reconciler runs when a test says so.
      env: { PAYMENT_RECONCILE_SECONDS: '3600' },
      overrides: [
        { provide: MpgsDriver, useValue: provider },
        { provide: DRIVER_SETTINGS, useValue: { of: (_gateway: Gateway) => Promise.resolve({}) } },
      ],
    });
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(
      gatewayInput({
        code: 'hosted',
        name: 'Hosted page',
        pg: 'mpgs',
        currencies: ['KWD'],
        tokenizable: true,
      }),
    );
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(() => t.close());
  beforeEach(() => {
    provider.canEnd = false;
    provider.hangs = false;
    provider.resumableForMs = 15 * 60_000;
    provider.payableForMs = 60 * 60_000;
  });

  const get = (path: string) => fetch(new URL(path, t.url), { redirect: 'manual' });
  const returnPath = (reference: string, extra = '') =>
    `/b/checkout/v1/gateways/hosted/return/?ref=${reference}${extra}`;
  const notify = (reference: string) =>
    fetch(`${t.url}/b/checkout/v1/gateways/hosted/notify/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Scripted-Secret': SCRIPTED_SECRET },
      body: JSON.stringify({ reference }),
    });
  const attempts = (sessionId: string) =>
    ds.query<AttemptRow[]>(
      `SELECT a.reference_number, a.result, a.left_at, a.settled_at, a.reconciliation
       FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id
       WHERE t.session_id = ? ORDER BY a.id`,
      [sessionId],
    );
  const holderOf = async (sessionId: string) =>
    (
      await ds.query<{ attempt_in_flight: string | null }[]>(
        'SELECT attempt_in_flight FROM transactions WHERE session_id = ?',
        [sessionId],
      )
    )[0].attempt_in_flight;
  const events = async (id: string) => (await adminEvents(t, id)).map((e) => e.event);
  const stateOf = async (id: string) => String((await d.get(id)).state);
  /** One reconciler pass, with every unsettled attempt overdue. */
  const reconcile = () => t.app.get(AttemptSettlement).reconcile(new Date(Date.now() + 10 * 60_000));
  const report = async (since = new Date(Date.now() - 3600_000).toISOString()) => {
    const res = await t
      .http()
      .get(`${RECONCILIATION}?since=${encodeURIComponent(since)}`)
      .set('Authorization', adminAuth())
      .expect(200);
    return res.body as {
      totals: { matched: number; pending: number; mismatch: number };
      gateways: { gateway: string; pg: string; matched: number; pending: number; mismatch: number }[];
      attempts: { reference_number: string; session_id: string; status: string; result: string }[];
    };
  };

  /** A transaction on the scripted gateway, picked: the customer is at the provider's page. */
  async function picked(overrides: Record<string, unknown> = {}) {
    const tx = await d.create({ pg_codes: ['hosted'], amount: '86.000', currency_code: 'KWD', ...overrides });
    const id = String(tx.session_id);
    const res = await get(`/b/checkout/pay/hosted?session_id=${id}`);
    assert.equal(res.status, 303);
    const [attempt] = await attempts(id);
    assert.equal(
      res.headers.get('location'),
      `https://pay.scripted.example/session/${attempt.reference_number}`,
    );
    return { id, reference: attempt.reference_number };
  }

  it('a cancel while the provider cannot end its session: payable again, the attempt watched; a payment taken there later is recorded paid, once', async () => {
    const { id, reference } = await picked();
    const back = await get(returnPath(reference, '&cancel=1'));
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), `/b/checkout/txn/${id}`);
    assert.equal(await stateOf(id), 'created');
    assert.equal(await holderOf(id), null, 'the customer may start again');
    const [left] = await attempts(id);
    assert.notEqual(left.left_at, null);
    assert.equal(left.settled_at, null, 'not closed: the session may still take the money');
    assert.equal((await report()).attempts.find((a) => a.reference_number === reference)?.status, 'pending');

    provider.payOnPage(reference); // the payer was still on the provider's page in another tab
    await reconcile();
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await events(id), ['created', 'paid']);
    await reconcile();
    await notify(reference);
    assert.deepEqual(await events(id), ['created', 'paid'], 'settled once');
    const [settled] = await attempts(id);
    assert.equal(settled.reconciliation, 'matched');
  });

  it('a decline the page lets the payer retry: failed (its event), the attempt still watched; the retry pays it', async () => {
    const { id, reference } = await picked();
    provider.declineOnPage(reference);
    assert.equal((await notify(reference)).status, 200);
    assert.equal(await stateOf(id), 'failed');
    assert.equal(await holderOf(id), null);
    assert.equal((await attempts(id))[0].settled_at, null);
    provider.payOnPage(reference);
    // Its notification comes within the few seconds the decline's answer is reused: acted on once
    // that reuse has passed (one more provider call), not left to the reconciler.
    assert.equal((await notify(reference)).status, 200);
    await eventually(async () => ((await stateOf(id)) === 'paid' ? true : undefined), 10_000, 'paid');
    assert.deepEqual(await events(id), ['created', 'failed', 'paid']);
  });

  it('picking the method again after a cancel goes back to the same provider session: never 409, no second session', async () => {
    const { id, reference } = await picked();
    assert.equal((await get(returnPath(reference, '&cancel=1'))).status, 303);
    provider.resetCalls();
    const again = await get(`/b/checkout/pay/hosted?session_id=${id}`);
    assert.equal(again.status, 303);
    assert.equal(again.headers.get('location'), `https://pay.scripted.example/session/${reference}`);
    assert.equal(provider.calls.start, 0);
    assert.equal((await attempts(id)).length, 1);
    assert.equal(await holderOf(id), reference, 'the left attempt holds the transaction again');
    assert.equal((await attempts(id))[0].left_at, null);
    provider.payOnPage(reference);
    assert.equal((await get(returnPath(reference))).status, 200);
    assert.equal(await stateOf(id), 'paid');
  });

  it('an old session that can no longer be resumed: a new one starts (never 409); if both are paid, the second payment is a reconciliation mismatch', async () => {
    provider.resumableForMs = 0;
    const { id, reference: first } = await picked();
    assert.equal((await get(returnPath(first, '&left=1'))).status, 303, 'back without paying: payable');
    const again = await get(`/b/checkout/pay/hosted?session_id=${id}`);
    assert.equal(again.status, 303);
    const rows = await attempts(id);
    assert.equal(rows.length, 2);
    const second = rows[1].reference_number;
    provider.payOnPage(second);
    assert.equal((await get(returnPath(second))).status, 200);
    assert.equal(await stateOf(id), 'paid');

    // The first session was still open at the provider, which cannot end it: the payer pays there too.
    provider.payOnPage(first);
    const before = await mismatchesCounted();
    await reconcile();
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await events(id), ['created', 'paid'], 'one paid webhook');
    const [old] = await attempts(id);
    assert.equal(old.reconciliation, 'mismatch');
    const body = await report();
    assert.equal(body.attempts.find((a) => a.reference_number === first)?.status, 'mismatch');
    assert.ok(body.totals.mismatch >= 1);
    assert.equal(await mismatchesCounted(), before + 1);
  });

  it('a session its customer left keeps the transaction from expiring until the provider says it is over', async () => {
    provider.payableForMs = 60_000;
    const { id, reference } = await picked({ expiration_time: '00:00:01' });
    assert.equal((await get(returnPath(reference, '&cancel=1'))).status, 303);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const expiry = t.app.get(ExpiryService);
    await expiry.sweep();
    assert.equal(await stateOf(id), 'created', 'the left session may still take the payment');
    // A pay attempt past the deadline does not expire it either.
    assert.notEqual((await get(`/b/checkout/txn/${id}/`)).status, 500);
    assert.equal(await stateOf(id), 'created');

    provider.endSession(reference);
    await reconcile();
    const [closed] = await attempts(id);
    assert.notEqual(closed.settled_at, null);
    await expiry.sweep({ now: new Date(Date.now() + 120_000) });
    assert.equal(await stateOf(id), 'expired');
  });

  it('100 identical returns and 50 loads of the pay page make at most 3 provider calls each', async () => {
    const { id, reference } = await picked();
    provider.resetCalls();
    const returns = await Promise.all(Array.from({ length: 100 }, () => get(returnPath(reference))));
    assert.ok(returns.every((res) => res.status === 200));
    assert.ok(provider.totalCalls() <= 3, `${provider.totalCalls()} provider calls for 100 returns`);
    await new Promise((resolve) => setTimeout(resolve, 5100)); // past the reuse of the answer
    provider.resetCalls();
    for (let i = 0; i < 50; i++)
      assert.equal((await get(`/b/checkout/pay/hosted?session_id=${id}`)).status, 303);
    assert.ok(provider.totalCalls() <= 3, `${provider.totalCalls()} provider calls for 50 pay-page loads`);
    assert.equal((await attempts(id)).length, 1);
    provider.payOnPage(reference);
    await reconcile();
  });

  it('a provider that stops answering: picking again answers within 10 s and sends the customer back to the session it has', async () => {
    const { id, reference } = await picked();
    provider.hangs = true;
    const started = Date.now();
    const again = await get(`/b/checkout/pay/hosted?session_id=${id}`);
    const took = Date.now() - started;
    assert.ok(took < 10_000, `answered after ${took} ms`);
    assert.equal(again.status, 303);
    assert.equal(again.headers.get('location'), `https://pay.scripted.example/session/${reference}`);
    const back = Date.now();
    const returned = await get(returnPath(reference));
    assert.ok(Date.now() - back < 10_000);
    assert.equal(returned.status, 200, 'the page that says the payment is being confirmed');
    provider.hangs = false;
    provider.payOnPage(reference);
    await reconcile();
    assert.equal(await stateOf(id), 'paid');
  });

  it('a saved-card charge whose answer is lost: 503 "pending", a second charge 409, then one paid webhook; charged once', async () => {
    const customer = `cust-${Date.now()}`;
    const card = await t.app.get(UnitOfWork).run((manager) =>
      t.app.get(CardsRepository).save(manager, {
        customerId: customer,
        pgCode: 'hosted',
        brand: 'Visa',
        nameOnCard: '',
        last4: '4242',
        expiryMonth: 12,
        expiryYear: 2039,
        fingerprint: `fp-${customer}`,
        gatewayToken: `tok-${customer}`,
        agreementId: null,
      }),
    );
    const tx = await d.create({
      pg_codes: ['hosted'],
      amount: '86.000',
      currency_code: 'KWD',
      customer_id: customer,
    });
    const id = String(tx.session_id);
    provider.loseNextChargeAnswer = true;
    provider.hangs = false;
    // The immediate inquiry cannot be answered either: the outcome stays unknown for now.
    const inquire = provider.inquire.bind(provider);
    provider.inquire = () => Promise.reject(new Error('the provider is not answering'));
    const first = await t
      .http()
      .post('/b/pbl/v2/auto-debit/')
      .set('Authorization', s.apiKey)
      .send({ session_id: id, token: card.token });
    assert.equal(first.status, 503);
    assert.equal(first.body.result, 'pending');
    assert.equal(first.body.session_id, id);
    assert.match(String(first.body.reference_number), /^[0-9A-F]{19}$/);
    const second = await t
      .http()
      .post('/b/pbl/v2/auto-debit/')
      .set('Authorization', s.apiKey)
      .send({ session_id: id, token: card.token });
    assert.equal(second.status, 409);
    assert.equal(await stateOf(id), 'created', 'nothing guessed');
    provider.inquire = inquire;
    await reconcile();
    assert.equal(await stateOf(id), 'paid');
    assert.deepEqual(await events(id), ['created', 'paid']);
    assert.equal(provider.ledger.has(String(first.body.reference_number)), true);
  });

  it('the reconciliation report: 400 for a bad period; admin only; and the money audit — every charge the provider took is exactly one paid transaction, or a counted mismatch', async () => {
    await t.http().get(`${RECONCILIATION}?since=yesterday`).set('Authorization', adminAuth()).expect(400);
    await t
      .http()
      .get(`${RECONCILIATION}?since=2030-01-01T00:00:00Z&until=2029-01-01T00:00:00Z`)
      .set('Authorization', adminAuth())
      .expect(400);
    await t.http().get(RECONCILIATION).set('Authorization', s.merchant).expect(403);
    await t.http().get(RECONCILIATION).expect(401);

    const body = await report();
    const byReference = new Map(body.attempts.map((a) => [a.reference_number, a]));
    let mismatches = 0;
    for (const [reference] of provider.ledger) {
      const attempt = byReference.get(reference);
      assert.ok(attempt, `the provider's charge ${reference} has an attempt`);
      if (attempt.status === 'mismatch') {
        mismatches++;
        continue;
      }
      assert.equal(attempt.status, 'matched', reference);
      assert.equal(attempt.result, 'success', reference);
      assert.equal(await stateOf(attempt.session_id), 'paid', reference);
    }
    // The one double payment the test above made on purpose, and nothing else.
    assert.equal(body.totals.mismatch, 1);
    assert.equal(mismatches, 1);
    const hosted = body.gateways.find((g) => g.gateway === 'hosted');
    assert.equal(hosted?.pg, 'mpgs');
  });

  async function mismatchesCounted(): Promise<number> {
    const res = await t.http().get('/metrics').set('Authorization', adminAuth()).expect(200);
    const line = /^checkout_reconciliation_mismatches_total\{gateway="hosted"\} (\d+)/m.exec(res.text);
    return line ? Number(line[1]) : 0;
  }
});
