import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_CARDS } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createErrors, createTransaction, TxJson } from '../transactions/helpers';
import { openPaymentPage, savedCardChoices } from '../checkout/page-helpers';

const helperPay = (sessionId: string) => `/b/checkout/v1/test-helpers/pymt-txn/${sessionId}/pay/`;
const CARDS = '/b/pbl/v2/card/';

interface CardJson {
  token: string;
  customer_id: string;
  number: string;
  [field: string]: unknown;
}

/**
 * contract §3: names compare exactly. MySQL's PAD SPACE collations make `'cust-x ' = 'cust-x'` (the
 * MariaDB leg's utf8mb4_bin is PAD SPACE; SQLite compares exactly): a customer id, a gateway
 * code or a card token that differs only by trailing spaces must never reach another's rows.
 */
describe('exact customer ids, gateway codes, card tokens and order numbers (contract §3, §15)', () => {
  let t: TestApp;
  let s: Seeded;
  /** cust-x's card, saved before the near-equal customer appears. */
  let card: CardJson;

  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    card = await saveCard('cust-x');
  });
  after(() => t.close());

  const pay = (sessionId: string, body: object) =>
    t.http().post(helperPay(sessionId)).set('Authorization', s.apiKey).send(body);
  const listCards = async (customerId: string): Promise<CardJson[]> =>
    (
      await t
        .http()
        .post(CARDS)
        .set('Authorization', s.apiKey)
        .send({ customer_id: customerId, type: 'sandbox' })
        .expect(200)
    ).body as CardJson[];

  async function saveCard(customerId: string, number: string = TEST_CARDS.success): Promise<CardJson> {
    const tx = await createTransaction(t, s, { customer_id: customerId });
    const paid = await pay(tx.session_id, { card: number, save_card: true }).expect(200);
    assert.equal(paid.body.state, 'paid');
    const cards = await listCards(customerId);
    const saved = cards.find((c) => c.number === `**** ${number.slice(-4)}`);
    assert.ok(saved, `${JSON.stringify(customerId)} has the card`);
    return saved;
  }

  it('lists no card of "cust-x" for "cust-x " (card API and payment methods)', async () => {
    assert.deepEqual(await listCards('cust-x '), []);
    assert.deepEqual(
      (await listCards('cust-x')).map((c) => c.token),
      [card.token],
    );
    const methods = await t
      .http()
      .post('/b/pbl/v2/payment-methods/')
      .set('Authorization', s.apiKey)
      .send({ customer_id: 'cust-x ', type: 'sandbox' })
      .expect(200);
    assert.deepEqual(methods.body.customer_payment_methods, []);
  });

  it('shows no card of "cust-x" on the payment page of a "cust-x " transaction', async () => {
    const tx: TxJson = await createTransaction(t, s, { customer_id: 'cust-x ' });
    assert.equal(tx.customer_id, 'cust-x ', 'kept as sent');
    const page = await t
      .http()
      .get(new URL(String(tx.payment_methods[0].redirect_url)).pathname + `?session_id=${tx.session_id}`)
      .expect(200);
    assert.ok(page.text.includes('Card number'));
    assert.ok(!page.text.includes('name="saved_card"'), 'no saved-card choice');
    assert.ok(!page.text.includes('**** 1111'));
  });

  it('charges, deletes and auto-debits no card of "cust-x" for "cust-x "', async () => {
    const tx = await createTransaction(t, s, { customer_id: 'cust-x ' });
    const debit = await t
      .http()
      .post('/b/pbl/v2/auto-debit/')
      .set('Authorization', s.apiKey)
      .send({ session_id: tx.session_id, token: card.token })
      .expect(400);
    assert.deepEqual(debit.body, {
      token: ["No saved card with this token belongs to this transaction's customer and gateway."],
    });
    await t
      .http()
      .delete(`${CARDS}${card.token}/?customer_id=${encodeURIComponent('cust-x ')}&type=sandbox`)
      .set('Authorization', s.apiKey)
      .expect(404);
    // A near-equal token is not the token either.
    await t
      .http()
      .delete(`${CARDS}${encodeURIComponent(`${card.token} `)}/?customer_id=cust-x&type=sandbox`)
      .set('Authorization', s.apiKey)
      .expect(404);
    await t
      .http()
      .post('/b/pbl/v2/auto-debit/')
      .set('Authorization', s.apiKey)
      .send({ session_id: tx.session_id, token: `${card.token} ` })
      .expect(400);
    assert.deepEqual(
      (await listCards('cust-x')).map((c) => c.token),
      [card.token],
      'still there',
    );
  });

  it('saves the same card for "cust-x " as its own card, leaving cust-x\'s as it was', async () => {
    const [before] = await listCards('cust-x');
    const own = await saveCard('cust-x ');
    assert.equal(own.customer_id, 'cust-x ');
    assert.notEqual(own.token, card.token);
    assert.deepEqual(await listCards('cust-x'), [before], "cust-x's card unchanged");
    // Saved again: still one card each.
    const again = await saveCard('cust-x ');
    assert.equal(again.token, own.token);
    assert.deepEqual(
      (await listCards('cust-x ')).map((c) => c.token),
      [own.token],
    );
    // And the page of a "cust-x " transaction offers and charges its own card only.
    const tx: TxJson = await createTransaction(t, s, {
      customer_id: 'cust-x ',
      redirect_url: 'https://shop.example/return',
    });
    const page = await openPaymentPage(t, String(tx.payment_methods[0].redirect_url));
    const choices = savedCardChoices(page.html);
    assert.equal(choices.length, 1, 'one saved card');
    const paid = await t
      .http()
      .post(page.path)
      .type('form')
      .set('Cookie', page.cookie)
      .send({ csrf_token: page.token, saved_card: choices[0], saved_cvc: '123' })
      .expect(303);
    assert.equal(new URL(String(paid.headers.location)).searchParams.get('state'), 'paid');
    const payload = await t
      .http()
      .post('/b/pbl/v2/inquiry/')
      .set('Authorization', s.apiKey)
      .send({ session_id: tx.session_id })
      .expect(200);
    assert.equal(payload.body.token?.token, own.token, "the webhook carries cust-x 's own card");
  });

  it('finds an order_no with surrounding spaces trimmed, as on create, and otherwise exactly', async () => {
    const tx = await createTransaction(t, s, { order_no: 'ORD-77' });
    const inquire = (order_no: string) =>
      t.http().post('/b/pbl/v2/inquiry/').set('Authorization', s.apiKey).send({ order_no });
    assert.equal((await inquire(' ORD-77 ').expect(200)).body.session_id, tx.session_id);
    await inquire('ORD-77x').expect(404);
    await inquire('ord-77').expect(404);
    const canceled = await t
      .http()
      .post('/b/pbl/v2/operation/')
      .set('Authorization', s.apiKey)
      .send({ operation: 'cancel', order_no: 'ORD-77  ' })
      .expect(200);
    assert.equal(canceled.body.session_id, tx.session_id);
  });

  it('refuses a gateway code that differs by trailing spaces', async () => {
    assert.deepEqual(await createErrors(t, s, { pg_codes: ['sandbox '] }), {
      pg_codes: ['"sandbox " is not a valid gateway code.'],
    });
  });
});
