import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { TEST_CARDS } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, TxJson } from '../transactions/helpers';
import { openPaymentPage, savedCardChoices } from './page-helpers';

const MERCHANT = 'https://shop.example/return';
const NOT_A_PAGE_CARD = 'Choose one of the saved cards shown on this page.';

/**
 * contract §15: the payment page lists the customer's saved cards without their tokens (a token
 * charges the card through auto-debit and deletes it through the card API). Each card is named by
 * a reference that means something on this transaction's page only; the form post maps it back
 * to the card server-side and refuses anything else.
 */
describe("the payment page's saved cards are named by page references, never tokens", () => {
  let t: TestApp;
  let s: Seeded;
  /** The tokens of customer cust-ref's two saved cards: the approving one first. */
  let tokens: string[];

  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    for (const card of [TEST_CARDS.success, TEST_CARDS.savedThenDeclined]) {
      const tx = await createTransaction(t, s, { customer_id: 'cust-ref' });
      await t
        .http()
        .post(`/b/checkout/v1/test-helpers/pymt-txn/${tx.session_id}/pay/`)
        .set('Authorization', s.apiKey)
        .send({ card, save_card: true })
        .expect(200);
    }
    const cards = await t
      .http()
      .post('/b/pbl/v2/card/')
      .set('Authorization', s.apiKey)
      .send({ customer_id: 'cust-ref', type: 'sandbox' })
      .expect(200);
    const saved = cards.body as { token: string; number: string }[];
    tokens = ['**** 1111', `**** ${TEST_CARDS.savedThenDeclined.slice(-4)}`].map(
      (number) => saved.find((card) => card.number === number)!.token,
    );
  });
  after(() => t.close());

  async function page(): Promise<{ tx: TxJson } & Awaited<ReturnType<typeof openPaymentPage>>> {
    const tx = await createTransaction(t, s, { customer_id: 'cust-ref', redirect_url: MERCHANT });
    return { tx, ...(await openPaymentPage(t, String(tx.payment_methods[0].redirect_url))) };
  }
  const post = (p: Awaited<ReturnType<typeof page>>, form: Record<string, string>) =>
    t
      .http()
      .post(p.path)
      .type('form')
      .set('Cookie', p.cookie)
      .send({ csrf_token: p.token, ...form });
  const attemptsOf = async (tx: TxJson): Promise<number> => {
    const [{ n }] = await t.app
      .get(DataSource)
      .query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id WHERE t.session_id = ?',
        [tx.session_id],
      );
    return Number(n);
  };

  it('lists each card by a reference that is not its token and differs from page to page', async () => {
    const first = await page();
    const refs = savedCardChoices(first.html);
    assert.equal(refs.length, 2);
    for (const token of tokens) assert.ok(!first.html.includes(token), 'no token anywhere in the page');
    for (const ref of refs) assert.ok(!tokens.includes(ref));
    assert.deepEqual(
      savedCardChoices((await t.http().get(first.path).expect(200)).text),
      refs,
      'stable on reload',
    );
    const second = await page();
    const others = savedCardChoices(second.html);
    assert.equal(others.length, 2);
    assert.ok(
      others.every((ref) => !refs.includes(ref)),
      "another transaction's page has other references",
    );
  });

  it('pays with the card a reference names', async () => {
    const p = await page();
    // Page order is most recently used first (contract §15): the card saved last, the one that
    // declines once saved, leads.
    const [declining, approving] = savedCardChoices(p.html);
    const res = await post(p, { saved_card: declining, saved_cvc: '123' }).expect(303);
    assert.equal(new URL(String(res.headers.location)).searchParams.get('state'), 'failed');
    const again = await openPaymentPage(t, String(p.tx.payment_methods[0].redirect_url));
    const paid = await t
      .http()
      .post(again.path)
      .type('form')
      .set('Cookie', again.cookie)
      .send({ csrf_token: again.token, saved_card: approving, saved_cvc: '123' })
      .expect(303);
    assert.equal(new URL(String(paid.headers.location)).searchParams.get('state'), 'paid');
    const payload = await t
      .http()
      .post('/b/pbl/v2/inquiry/')
      .set('Authorization', s.apiKey)
      .send({ session_id: p.tx.session_id })
      .expect(200);
    assert.equal(payload.body.token?.token, tokens[0]);
  });

  it("refuses a token, another page's reference or anything else, charging nothing", async () => {
    const p = await page();
    const elsewhere = savedCardChoices((await page()).html);
    for (const sent of [tokens[0], elsewhere[0], 'x'.repeat(43), `${savedCardChoices(p.html)[0]} `]) {
      const res = await post(p, { saved_card: sent, saved_cvc: '123' }).expect(400);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.ok(res.text.includes(NOT_A_PAGE_CARD), 'the reason, beside the saved cards');
      for (const token of tokens) assert.ok(!res.text.includes(token), 'no token in the refused page');
    }
    assert.equal(await attemptsOf(p.tx), 0, 'nothing reached the gateway');
    const now = await t.http().get(`/b/checkout/v1/pymt-txn/${p.tx.session_id}/`).expect(200);
    assert.equal(now.body.state, 'created');
  });

  it('shows the chosen card again, by its reference, when the CVC is refused', async () => {
    const p = await page();
    const [, second] = savedCardChoices(p.html);
    const res = await post(p, { saved_card: second, saved_cvc: '1' }).expect(400);
    const escaped = second.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
    assert.match(res.text, new RegExp(`value="${escaped}"\\s+id="saved-card-1"\\s+checked`));
    assert.equal(await attemptsOf(p.tx), 0);
  });
});
