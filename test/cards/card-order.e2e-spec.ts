import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { UsersService } from '../../src/auth/users/users.service';
import { TEST_CARDS } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { basicAuth, gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { openPaymentPage, savedCardChoices } from '../checkout/page-helpers';
import { createTransaction, TxJson } from '../transactions/helpers';

const CARDS = '/b/pbl/v2/card/';
const AUTO_DEBIT = '/b/pbl/v2/auto-debit/';
/** Three cards the sandbox approves when they are saved. */
const A = TEST_CARDS.success; // **** 1111
const B = TEST_CARDS.savedThenDeclined; // **** 0341: later charges are declined
const C = TEST_CARDS.savedThenError; // **** 0358

interface CardJson {
  token: string;
  number: string;
  pg_code: string;
  agreements: string[];
}

const last4 = (cards: CardJson[]): string[] => cards.map((card) => card.number.slice(-4));

/**
 * contract §15: a customer's cards are listed most recently used first — saved, saved again, or
 * charged (a page payment with the card, or an auto-debit, whatever its result) — and with
 * `agreement_id` only the card last used for that agreement.
 */
describe('saved cards, most recently used first; the card of an agreement', () => {
  let t: TestApp;
  let s: Seeded;
  /** Basic user of `other-sandbox` only. */
  let otherUser: string;

  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(gatewayInput({ code: 'other-sandbox', name: 'Other sandbox' }));
    await t.app
      .get(UsersService)
      .create({ username: 'other-user', password: 'other-pass-123', gatewayCodes: ['other-sandbox'] });
    otherUser = basicAuth('other-user', 'other-pass-123');
  });
  after(() => t.close());

  const listCards = (customer_id: string, extra: object = {}, auth = s.apiKey) =>
    t
      .http()
      .post(CARDS)
      .set('Authorization', auth)
      .send({ customer_id, type: 'sandbox', ...extra });
  const listed = async (customer: string, extra: object = {}, auth = s.apiKey): Promise<CardJson[]> =>
    (await listCards(customer, extra, auth).expect(200)).body as CardJson[];
  const autoDebit = (session_id: string, token: string) =>
    t.http().post(AUTO_DEBIT).set('Authorization', s.apiKey).send({ session_id, token }).expect(200);

  /** Saves `card` for `customer` through a paid transaction (with `tx` fields such as an agreement). */
  async function save(customer: string, card: string, tx: object = {}): Promise<void> {
    const created = await createTransaction(t, s, { customer_id: customer, ...tx });
    const paid = await t
      .http()
      .post(`/b/checkout/v1/test-helpers/pymt-txn/${created.session_id}/pay/`)
      .set('Authorization', s.apiKey)
      .send({ card, save_card: true })
      .expect(200);
    assert.equal(paid.body.state, 'paid');
  }
  const tokenOf = async (customer: string, card: string): Promise<string> =>
    (await listed(customer)).find((c) => c.number === `**** ${card.slice(-4)}`)!.token;

  it('lists the card saved last first, and a card saved again first again', async () => {
    for (const card of [A, B, C]) await save('cust-order', card);
    assert.deepEqual(last4(await listed('cust-order')), ['0358', '0341', '1111']);
    await save('cust-order', A);
    assert.deepEqual(last4(await listed('cust-order')), ['1111', '0358', '0341']);
  });

  it('moves a card charged by auto-debit to the front, also when the charge is declined', async () => {
    for (const card of [A, B, C]) await save('cust-debit-order', card);
    const paid = await createTransaction(t, s, { customer_id: 'cust-debit-order' });
    await autoDebit(paid.session_id, await tokenOf('cust-debit-order', A));
    assert.deepEqual(last4(await listed('cust-debit-order')), ['1111', '0358', '0341']);
    const declined = await createTransaction(t, s, { customer_id: 'cust-debit-order' });
    const res = await autoDebit(declined.session_id, await tokenOf('cust-debit-order', B));
    assert.equal(res.body.result, 'failed');
    assert.deepEqual(last4(await listed('cust-debit-order')), ['0341', '1111', '0358']);
  });

  it('orders the payment page and payment-methods the same way, and a page payment counts', async () => {
    for (const card of [A, B]) await save('cust-page', card);
    const open = async (): Promise<{ tx: TxJson } & Awaited<ReturnType<typeof openPaymentPage>>> => {
      const tx = await createTransaction(t, s, {
        customer_id: 'cust-page',
        redirect_url: 'https://shop.example/return',
      });
      return { tx, ...(await openPaymentPage(t, String(tx.payment_methods[0].redirect_url))) };
    };
    const pageOrder = (html: string): string[] => [...html.matchAll(/\*{4} (\d{4})/g)].map((m) => m[1]);
    const methods = async (): Promise<string[]> => {
      const res = await t
        .http()
        .post('/b/pbl/v2/payment-methods/')
        .set('Authorization', s.apiKey)
        .send({ customer_id: 'cust-page' })
        .expect(200);
      return last4(res.body.customer_payment_methods as CardJson[]);
    };

    const p = await open();
    assert.deepEqual(pageOrder(p.html), ['0341', '1111']);
    assert.deepEqual(await methods(), ['0341', '1111']);
    // Pay on the page with the older card (the second choice): it is used now, so it leads.
    const [, older] = savedCardChoices(p.html);
    const res = await t
      .http()
      .post(p.path)
      .type('form')
      .set('Cookie', p.cookie)
      .send({ csrf_token: p.token, saved_card: older, saved_cvc: '123' })
      .expect(303);
    assert.equal(new URL(String(res.headers.location)).searchParams.get('state'), 'paid');
    assert.deepEqual(pageOrder((await open()).html), ['1111', '0341']);
    assert.deepEqual(await methods(), ['1111', '0341']);
    assert.deepEqual(last4(await listed('cust-page')), ['1111', '0341']);
  });

  describe('agreement_id', () => {
    const debitTx = (agreement: string) => ({
      payment_type: 'auto_debit',
      agreement: { id: agreement },
    });

    it('answers only the card last used for the agreement, [] when none was', async () => {
      await save('cust-agr', A, debitTx('plan-1'));
      await save('cust-agr', B, debitTx('plan-2'));
      await save('cust-agr', C); // no agreement: the most recently used card overall
      assert.deepEqual(last4(await listed('cust-agr')), ['0358', '0341', '1111']);
      const plan1 = await listed('cust-agr', { agreement_id: 'plan-1' });
      assert.deepEqual(last4(plan1), ['1111']);
      assert.deepEqual(plan1[0].agreements, ['plan-1']);
      assert.deepEqual(last4(await listed('cust-agr', { agreement_id: 'plan-2' })), ['0341']);
      assert.deepEqual(await listed('cust-agr', { agreement_id: 'plan-unknown' }), []);
      // Agreement ids compare exactly (contract §3): trailing spaces make another agreement.
      assert.deepEqual(await listed('cust-agr', { agreement_id: 'plan-1 ' }), []);
      // Another customer's agreement of the same id is not this customer's.
      assert.deepEqual(await listed('cust-agr-2', { agreement_id: 'plan-1' }), []);
      // null means not sent: every card.
      assert.equal((await listed('cust-agr', { agreement_id: null })).length, 3);
    });

    it('follows the card saved under it last, or charged by an auto-debit for it', async () => {
      await save('cust-agr-move', A, debitTx('plan-m'));
      await save('cust-agr-move', B, debitTx('plan-m'));
      assert.deepEqual(last4(await listed('cust-agr-move', { agreement_id: 'plan-m' })), ['0341']);
      // An auto-debit of a transaction carrying the agreement, with the older card.
      const tx = await createTransaction(t, s, { customer_id: 'cust-agr-move', ...debitTx('plan-m') });
      await autoDebit(tx.session_id, await tokenOf('cust-agr-move', A));
      assert.deepEqual(last4(await listed('cust-agr-move', { agreement_id: 'plan-m' })), ['1111']);
      // A card charged for another agreement, or used without one, does not become this one's card.
      const other = await createTransaction(t, s, { customer_id: 'cust-agr-move', ...debitTx('plan-n') });
      await autoDebit(other.session_id, await tokenOf('cust-agr-move', B));
      assert.deepEqual(last4(await listed('cust-agr-move', { agreement_id: 'plan-m' })), ['1111']);
      assert.deepEqual(last4(await listed('cust-agr-move', { agreement_id: 'plan-n' })), ['0341']);
      await save('cust-agr-move', B);
      assert.deepEqual(last4(await listed('cust-agr-move', { agreement_id: 'plan-m' })), ['1111']);
      // Deleting the agreement's card leaves the one used before it.
      const token = await tokenOf('cust-agr-move', A);
      await t
        .http()
        .delete(`${CARDS}${token}/?customer_id=cust-agr-move&type=sandbox`)
        .set('Authorization', s.apiKey)
        .expect(204);
      assert.deepEqual(last4(await listed('cust-agr-move', { agreement_id: 'plan-m' })), ['0341']);
    });

    it('only looks at cards the caller may reach (gateways, type, pg_codes)', async () => {
      await save('cust-agr-gw', A, debitTx('plan-g'));
      await save('cust-agr-gw', B, { ...debitTx('plan-g'), pg_codes: ['other-sandbox'] });
      const latest = await listed('cust-agr-gw', { agreement_id: 'plan-g' });
      assert.deepEqual(
        latest.map((c) => [c.pg_code, c.number]),
        [['other-sandbox', '**** 0341']],
      );
      // The merchant (Basic, sandbox only) never sees the other gateway's card: its latest is A.
      assert.deepEqual(
        (await listed('cust-agr-gw', { agreement_id: 'plan-g' }, s.merchant)).map((c) => [
          c.pg_code,
          c.number,
        ]),
        [['sandbox', '**** 1111']],
      );
      assert.deepEqual(
        last4(await listed('cust-agr-gw', { agreement_id: 'plan-g', pg_codes: ['sandbox'] })),
        ['1111'],
      );
      assert.deepEqual(last4(await listed('cust-agr-gw', { agreement_id: 'plan-g' }, otherUser)), ['0341']);
      assert.deepEqual(await listed('cust-agr-gw', { agreement_id: 'plan-g', type: 'production' }), []);
    });

    it('is validated like the other fields: a string of at most 128 characters', async () => {
      const long = await listCards('cust-agr', { agreement_id: 'x'.repeat(129) }).expect(400);
      assert.deepEqual(long.body, { agreement_id: ['Ensure this field has no more than 128 characters.'] });
      const notText = await listCards('cust-agr', { agreement_id: 42 }).expect(400);
      assert.deepEqual(notText.body, { agreement_id: ['Not a valid string.'] });
      await listCards('cust-agr', { agreement_id: 'x'.repeat(128) }).expect(200);
    });
  });
});
