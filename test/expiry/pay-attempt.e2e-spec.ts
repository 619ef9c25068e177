import { cardForm } from '../checkout/page-helpers';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_CARDS, testPayPath, TransactionDriver } from '../factories/transaction-states';
import { adminEvents, dataSourceOf } from '../events/event-helpers';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { expiryOf, setAutoExpire, setDeadline } from './expiry-helpers';

const EXPIRED_PAGE = 'This payment link has expired.';

/**
 * contract §7: a transaction past its deadline is expired when someone tries to pay it — on the
 * checkout page, a payment page, the page's form, the test helper. With auto-expiry off that is
 * the only way it expires; with it on, the pay path does not wait for the next sweep either.
 */
for (const mode of [
  { name: 'auto-expiry off (the scheduled runs sweep nothing)', autoExpire: false },
  { name: 'auto-expiry on (before the next sweep)', autoExpire: true },
]) {
  describe(`expiry on the pay attempt, ${mode.name}`, () => {
    let t: TestApp;
    let s: Seeded;
    let d: TransactionDriver;
    before(async () => {
      // The job stays out of the way (one hour): a test that needs its run calls runScheduled, what
      // the job calls on each tick.
      t = await startApp({ env: { EXPIRY_SWEEP_SECONDS: '3600' } });
      s = await seedBasics(t);
      await setAutoExpire(t, mode.autoExpire);
      d = new TransactionDriver(t, s.apiKey);
    });
    after(() => t.close());

    /** A payable transaction whose deadline has just passed (and no job has expired it). */
    async function late(overrides: Record<string, unknown> = {}) {
      const tx = await d.create(overrides);
      const id = String(tx.session_id);
      await setDeadline(dataSourceOf(t), id, new Date(Date.now() - 1));
      return { id, tx };
    }

    async function assertExpiredOnce(id: string) {
      const view = await d.get(id);
      assert.equal(view.state, 'expired');
      assert.equal(view.paid_amount, '0.000');
      assert.deepEqual(
        (await adminEvents(t, id)).map((e) => e.event),
        ['created', 'expired'],
      );
    }

    it('keeps it as it is on retrieve', async () => {
      const { id } = await late();
      assert.equal((await d.get(id)).state, 'created');
      assert.equal((await d.get(id)).state, 'created');
      if (!mode.autoExpire) {
        // Two runs of the job: they sweep nothing while auto-expiry is off; still not expired.
        assert.equal(await expiryOf(t).runScheduled(), null);
        assert.equal(await expiryOf(t).runScheduled(), null);
        assert.equal((await d.get(id)).state, 'created');
      }
      assert.deepEqual(
        (await adminEvents(t, id)).map((e) => e.event),
        ['created'],
      );
    });

    it('expires it when the checkout page is opened (through checkout_url) and shows that', async () => {
      const { id, tx } = await late();
      const start = new URL(String(tx.checkout_url));
      const redirect = await t
        .http()
        .get(start.pathname + start.search)
        .expect(302);
      const page = await t.http().get(String(redirect.headers.location)).expect(200);
      assert.ok(page.text.includes(EXPIRED_PAGE));
      assert.ok(!page.text.includes('Card number'));
      await assertExpiredOnce(id);
    });

    it('expires it when its payment page is opened, and offers no card form', async () => {
      const { id, tx } = await late();
      const method = new URL((tx.payment_methods as { redirect_url: string }[])[0].redirect_url);
      const page = await t
        .http()
        .get(method.pathname + method.search)
        .expect(200);
      assert.ok(page.text.includes(EXPIRED_PAGE));
      assert.ok(!page.text.includes('Card number'));
      await assertExpiredOnce(id);
    });

    it('expires it instead of charging when the form opened in time is sent after the deadline', async () => {
      const tx = await d.create();
      const id = String(tx.session_id);
      const method = new URL((tx.payment_methods as { redirect_url: string }[])[0].redirect_url);
      const path = method.pathname + method.search;
      const form = await t.http().get(path).expect(200);
      assert.ok(form.text.includes('Card number'));
      const cookie = String(form.headers['set-cookie']?.[0] ?? '').split(';')[0];
      const token = /name="csrf_token" value="([0-9a-f]{64})"/.exec(form.text)?.[1] ?? '';
      await setDeadline(dataSourceOf(t), id, new Date(Date.now() - 1));
      const res = await t
        .http()
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send({ csrf_token: token, ...cardForm(TEST_CARDS.success) })
        .expect(409);
      assert.ok(res.text.includes(EXPIRED_PAGE));
      await assertExpiredOnce(id);
      const attempts = await dataSourceOf(t).query<{ result: string }[]>(
        `SELECT a.result FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id WHERE t.session_id = ?`,
        [id],
      );
      assert.ok(attempts.every((a) => a.result !== 'success'));
    });

    it('expires it instead of canceling when the customer cancels after the deadline', async () => {
      const tx = await d.create();
      const id = String(tx.session_id);
      const page = await t.http().get(`/b/checkout/txn/${id}`).expect(200);
      const cookie = String(page.headers['set-cookie']?.[0] ?? '').split(';')[0];
      const token = /name="csrf_token" value="([0-9a-f]{64})"/.exec(page.text)?.[1] ?? '';
      await setDeadline(dataSourceOf(t), id, new Date(Date.now() - 1));
      await t
        .http()
        .post(`/b/checkout/txn/${id}/cancel`)
        .set('Cookie', cookie)
        .type('form')
        .send({ csrf_token: token })
        .expect(409);
      await assertExpiredOnce(id);
    });

    it('expires it on the test helper, answering 409 with the state', async () => {
      const { id } = await late({ order_no: `late-${mode.autoExpire}` });
      const res = await t
        .http()
        .post(testPayPath(id))
        .set('Authorization', s.apiKey)
        .send({ card: TEST_CARDS.success })
        .expect(409);
      assert.deepEqual(res.body, { detail: 'A transaction in state "expired" can no longer be paid.' });
      await assertExpiredOnce(id);
      // The order_no is free again.
      await d.create({ order_no: `late-${mode.autoExpire}` });
    });

    it('still pays a transaction whose deadline has not passed', async () => {
      const tx = await d.create();
      const id = String(tx.session_id);
      await setDeadline(dataSourceOf(t), id, new Date(Date.now() + 60_000));
      const res = await t
        .http()
        .post(testPayPath(id))
        .set('Authorization', s.apiKey)
        .send({ card: TEST_CARDS.success })
        .expect(200);
      assert.equal(res.body.state, 'paid');
    });
  });
}
