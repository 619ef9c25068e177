import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { openPaymentPage, savedCardChoices } from '../checkout/page-helpers';
import { dataSourceOf, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { MpgsSimulator } from '../providers/mpgs/mpgs-simulator';
import { seedBasics, type Seeded } from '../setup/fixtures';
import { gatewayTokenOf as savedGatewayToken, listCards, seedSavingGateways } from './saved-card-helpers';
import { startApp, type TestApp } from '../setup/test-app';
import {
  assertMoneyAudit,
  attemptsOf,
  MPGS_CARDS,
  mpgsSessionOf,
  mpgsSettings,
  seedMpgsGateways,
} from './mpgs-helpers';

const AUTO_DEBIT = '/b/pbl/v2/auto-debit/';
/** An `mpgs` gateway that saves cards (contract §15, §20), and one that authorizes only. */
const SAVING = 'mpgs-cards';
const SAVING_AUTH = 'mpgs-cards-auth';
/** A second test card MPGS approves (docs/gateways/mpgs.md "Test cards"). */
const OTHER_CARD = { number: '4508750015741019', expiry: '01/39', csc: '100' };

interface PayBody {
  apiOperation: string;
  order: Record<string, string>;
  sourceOfFunds: { type: string; token: string; provided?: { card?: Record<string, string> } };
  transaction: Record<string, string>;
}

/**
 * Saved cards through MPGS (contract §15, §20 "Saved cards"), end to end over HTTP against the MPGS
 * simulator: a card typed on the Hosted Payment Page of a session that saves is stored at the
 * gateway (CREATE TOKEN from the session) once the order is paid — on the customer's return or on
 * a notification that comes first; the same card saved twice is one card; auto-debit is a
 * merchant-initiated PAY with the token, the saved card picked on our page a cardholder-initiated
 * one; a decline, a token MPGS no longer knows, and a gateway that refuses to tokenize.
 */
describe('MPGS saved cards: save on the Hosted Payment Page, charge the token', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: MpgsSimulator;
  let ds: DataSource;
  let since: string;

  before(async () => {
    since = new Date(Date.now() - 1000).toISOString();
    sim = await new MpgsSimulator().start();
    t = await startApp({
      env: { PAYMENT_RECONCILE_SECONDS: '1', PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '2' },
      overrides: [mpgsSettings(() => sim)],
    });
    s = await seedBasics(t);
    await seedMpgsGateways(t);
    await seedSavingGateways(t, 'mpgs', { saving: SAVING, savingAuth: SAVING_AUTH }, 'MPGS');
    d = new TransactionDriver(t, s.apiKey);
    ds = dataSourceOf(t);
  });
  after(async () => {
    await sim.stop();
    await t.close();
  });

  const get = (path: string) => fetch(new URL(path, t.url), { redirect: 'manual' });
  const stateOf = async (id: string) => String((await d.get(id)).state);

  const cardsOf = (customer: string) => listCards(t, s.apiKey, customer);
  const gatewayTokenOf = (token: string) => savedGatewayToken(ds, token);

  const autoDebit = (sessionId: string, token: string) =>
    t.http().post(AUTO_DEBIT).set('Authorization', s.apiKey).send({ session_id: sessionId, token });

  /**
   * A transaction of `customer` on `pg` picked on our page (the save box ticked when `save`): the
   * page that loads `checkout.min.js` for the attempt's MPGS session.
   */
  async function toMpgs(customer: string, options: { pg?: string; save?: boolean } = {}) {
    const pg = options.pg ?? SAVING;
    const tx = await d.create({ pg_codes: [pg], customer_id: customer });
    const id = String(tx.session_id);
    const page = await openPaymentPage(t, `${t.url}/b/checkout/pay/${pg}?session_id=${id}`);
    const form: Record<string, string> = { csrf_token: page.token, saved_card: '' };
    if (options.save) form.save_card = 'true';
    const posted = await t.http().post(page.path).set('Cookie', page.cookie).type('form').send(form);
    assert.equal(posted.status, 200, posted.text);
    const [attempt] = (await attemptsOf(ds, id)).slice(-1);
    const session = mpgsSessionOf(attempt).session_id;
    assert.match(posted.text, new RegExp(`data-session-id="${session}"`));
    return { id, reference: attempt.reference_number, session };
  }

  /** Pays on the simulated Hosted Payment Page and comes back: the transaction's state. */
  async function payOnMpgs(
    picked: { id: string; session: string },
    card: { number: string; expiry: string; csc?: string } = MPGS_CARDS.approved,
  ): Promise<string> {
    const back = await get(sim.payOnHostedPage(picked.session, card));
    assert.ok([200, 303].includes(back.status), `return answered ${back.status}`);
    return stateOf(picked.id);
  }

  /** A card saved for `customer` by a payment on the Hosted Payment Page: its listing and MPGS token. */
  async function savedCard(customer: string, card: { number: string; expiry: string } = MPGS_CARDS.approved) {
    const picked = await toMpgs(customer, { save: true });
    assert.equal(await payOnMpgs(picked, card), 'paid');
    const listed = (await cardsOf(customer)).find((c) => c.number === `**** ${card.number.slice(-4)}`);
    assert.ok(listed, 'the card is listed for the customer');
    return { listed, mpgsToken: await gatewayTokenOf(listed.token) };
  }

  it('a ticked "save this card": once the order is paid, the session is tokenized and the card saved', async () => {
    const page = await openPaymentPage(
      t,
      `${t.url}/b/checkout/pay/${SAVING}?session_id=${String(
        (await d.create({ pg_codes: [SAVING], customer_id: 'cust-page' })).session_id,
      )}`,
    );
    assert.match(page.html, /name="save_card"/);
    assert.doesNotMatch(page.html, /name="card"|name="cvc"/, 'the card is typed on the Hosted Payment Page');

    const tokensBefore = sim.requestsFor('CREATE_TOKEN').length;
    const picked = await toMpgs('cust-save', { save: true });
    assert.equal(sim.requestsFor('CREATE_TOKEN').length, tokensBefore, 'nothing is stored before payment');
    assert.equal(await payOnMpgs(picked), 'paid');

    const created = sim.requestsFor('CREATE_TOKEN').slice(tokensBefore);
    assert.ok(created.length >= 1);
    assert.deepEqual(created[0].body, { session: { id: picked.session }, sourceOfFunds: { type: 'CARD' } });
    const cards = await cardsOf('cust-save');
    assert.equal(cards.length, 1);
    const [card] = cards;
    assert.equal(card.pg_code, SAVING);
    assert.equal(card.brand, 'Mastercard');
    assert.equal(card.number, '**** 0008');
    assert.equal(card.expiry_month, '01');
    assert.equal(card.expiry_year, '2039');
    assert.equal(card.name_on_card, '');
    assert.equal(card.cvv_required, false, 'our page asks no CVC for an MPGS saved card');
    const mpgsToken = await gatewayTokenOf(card.token);
    assert.equal(
      sim.tokenCard(mpgsToken)?.number,
      MPGS_CARDS.approved.number,
      'the token stands for the card',
    );
    assert.doesNotMatch(JSON.stringify(cards), new RegExp(`${mpgsToken}|5123450000000008`));
  });

  it('the same card saved twice is one card; another card is a second one, most recently used first', async () => {
    const first = await savedCard('cust-twice');
    const again = await savedCard('cust-twice');
    assert.equal(again.listed.token, first.listed.token, 'one card, its token kept');
    assert.equal(again.mpgsToken, first.mpgsToken);
    await savedCard('cust-twice', OTHER_CARD);
    assert.deepEqual(
      (await cardsOf('cust-twice')).map((c) => `${c.brand} ${c.number}`),
      ['Visa **** 1019', 'Mastercard **** 0008'],
    );
  });

  it('a notification that comes before the customer saves the card with the payment', async () => {
    sim.notifier.controls.mode = 'hold';
    try {
      const picked = await toMpgs('cust-notified', { save: true });
      sim.payOnHostedPage(picked.session, MPGS_CARDS.approved); // the customer never comes back
      sim.notifier.controls.mode = 'send';
      sim.notifier.releaseHeld();
      await sim.notifier.settled();
      await eventually(async () => ((await stateOf(picked.id)) === 'paid' ? true : undefined));
      const cards = await cardsOf('cust-notified');
      assert.deepEqual(
        cards.map((c) => `${c.brand} ${c.number}`),
        ['Mastercard **** 0008'],
      );
    } finally {
      sim.notifier.controls.mode = 'send';
    }
  });

  it('a customer who does not tick the box saves nothing: no token is created', async () => {
    const tokensBefore = sim.requestsFor('CREATE_TOKEN').length;
    const picked = await toMpgs('cust-nosave');
    assert.equal(await payOnMpgs(picked), 'paid');
    assert.equal(sim.requestsFor('CREATE_TOKEN').length, tokensBefore);
    assert.deepEqual(await cardsOf('cust-nosave'), []);
  });

  it('a gateway that refuses to tokenize keeps the payment and saves no card', async () => {
    const picked = await toMpgs('cust-refused', { save: true });
    // RETRIEVE ORDER answers; every CREATE TOKEN is refused (a merchant profile without
    // tokenization), whether the return or the reconciler asks first.
    const lift = sim.refuseOperation('CREATE_TOKEN', {
      cause: 'INVALID_REQUEST',
      explanation: 'Tokenization is not enabled',
    });
    try {
      const returnUrl = sim.payOnHostedPage(picked.session, MPGS_CARDS.approved);
      assert.ok([200, 303].includes((await get(returnUrl)).status));
      assert.equal(await stateOf(picked.id), 'paid', 'the payment stands');
      assert.ok(sim.requestsFor('CREATE_TOKEN').length > 0, 'tokenization was asked for, and refused');
      assert.deepEqual(await cardsOf('cust-refused'), [], 'no card is saved');
    } finally {
      lift();
    }
  });

  it('auto-debit charges the token merchant-initiated: PAY with storedOnFile STORED, then a refund', async () => {
    const { listed, mpgsToken } = await savedCard('cust-debit');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'cust-debit', amount: '12.340' });
    const id = String(tx.session_id);
    const res = await autoDebit(id, listed.token).expect(200);
    assert.equal(res.body.result, 'success');
    assert.equal(await stateOf(id), 'paid');
    const [attempt] = await attemptsOf(ds, id);
    const pay = sim.requestsFor('PAY').at(-1)!;
    const body = pay.body as PayBody;
    assert.equal(pay.path.split('/order/')[1].split('/')[0], attempt.reference_number);
    assert.equal(body.order.amount, '12.340');
    assert.equal(body.order.currency, 'KWD');
    assert.equal(body.sourceOfFunds.token, mpgsToken);
    assert.equal(body.sourceOfFunds.provided?.card?.storedOnFile, 'STORED');
    assert.equal(body.sourceOfFunds.provided?.card?.securityCode, undefined);
    assert.equal(body.transaction.source, 'MERCHANT');
    assert.equal(sim.order(attempt.reference_number)?.status, 'CAPTURED');

    const refund = await t
      .http()
      .post('/b/pbl/v2/operation/')
      .set('Authorization', s.apiKey)
      .send({ session_id: id, operation: 'refund', amount: '2.000' });
    assert.equal(refund.status, 200, refund.text);
    assert.equal(sim.order(attempt.reference_number)?.status, 'PARTIALLY_REFUNDED');
  });

  it('auto-debit on an authorize gateway is an AUTHORIZE; a declined card and an unknown token charge nothing', async () => {
    const { listed, mpgsToken } = await savedCard('cust-auth');
    await ds.query('UPDATE cards SET pg_code = ? WHERE token = ?', [SAVING_AUTH, listed.token]);
    const held = await d.create({ pg_codes: [SAVING_AUTH], customer_id: 'cust-auth' });
    assert.equal((await autoDebit(String(held.session_id), listed.token).expect(200)).body.result, 'success');
    assert.equal(await stateOf(String(held.session_id)), 'authorized');
    assert.equal((sim.requestsFor('AUTHORIZE').at(-1)!.body as PayBody).apiOperation, 'AUTHORIZE');

    sim.setTokenExpiry(mpgsToken, MPGS_CARDS.declined.expiry);
    const declined = await d.create({ pg_codes: [SAVING_AUTH], customer_id: 'cust-auth' });
    const answer = await autoDebit(String(declined.session_id), listed.token);
    const response = (body: unknown) =>
      (body as { gateway_response: Record<string, string> }).gateway_response;
    assert.equal(response(answer.body).result, 'declined', JSON.stringify(answer.body));
    assert.equal(response(answer.body).response_code, 'DECLINED');
    assert.equal(await stateOf(String(declined.session_id)), 'failed');

    await ds.query('UPDATE cards SET gateway_token = ? WHERE token = ?', ['9000000000000000', listed.token]);
    const unknown = await d.create({ pg_codes: [SAVING_AUTH], customer_id: 'cust-auth' });
    const refused = await autoDebit(String(unknown.session_id), listed.token);
    assert.equal(response(refused.body).result, 'error', JSON.stringify(refused.body));
    assert.equal(response(refused.body).response_code, 'INVALID_REQUEST');
    const [unknownAttempt] = await attemptsOf(ds, String(unknown.session_id));
    assert.equal(
      sim.order(unknownAttempt.reference_number),
      undefined,
      'MPGS made no order: nothing charged',
    );
  });

  it('the saved card picked on our page is a cardholder-initiated PAY (source INTERNET)', async () => {
    const { listed, mpgsToken } = await savedCard('cust-picks');
    const tx = await d.create({ pg_codes: [SAVING], customer_id: 'cust-picks', amount: '3.000' });
    const id = String(tx.session_id);
    const page = await openPaymentPage(t, `${t.url}/b/checkout/pay/${SAVING}?session_id=${id}`);
    const [choice] = savedCardChoices(page.html);
    assert.ok(choice, 'the page offers the saved card');
    assert.doesNotMatch(page.html, new RegExp(listed.token), 'the page names the card by its own reference');
    const posted = await t
      .http()
      .post(page.path)
      .set('Cookie', page.cookie)
      .type('form')
      .send({ csrf_token: page.token, saved_card: choice });
    assert.ok([200, 303].includes(posted.status), posted.text);
    assert.equal(await stateOf(id), 'paid');
    const body = sim.requestsFor('PAY').at(-1)!.body as PayBody;
    assert.equal(body.sourceOfFunds.token, mpgsToken);
    assert.equal(body.transaction.source, 'INTERNET');
    assert.equal(body.sourceOfFunds.provided?.card?.storedOnFile, 'STORED');
  });

  it('credential on file: the session that saves the card marks its payment TO_BE_STORED (the first of a stored card)', async () => {
    const picked = await toMpgs('cust-cof', { save: true });
    const initiated = sim.requestsFor('INITIATE_CHECKOUT').at(-1)!.body as Record<string, unknown>;
    assert.deepEqual(initiated.sourceOfFunds, { provided: { card: { storedOnFile: 'TO_BE_STORED' } } });
    assert.equal(await payOnMpgs(picked), 'paid');
    const payment = sim.order(picked.reference)!.transactions.find((x) => x.type === 'PAYMENT');
    assert.equal(payment?.storedOnFile, 'TO_BE_STORED');
    const oneOff = await toMpgs('cust-cof-none');
    const plain = sim.requestsFor('INITIATE_CHECKOUT').at(-1)!.body as Record<string, unknown>;
    assert.equal(plain.sourceOfFunds, undefined, 'a one-off payment stores nothing');
    assert.equal(await payOnMpgs(oneOff), 'paid');
  });

  it('credential on file: an auto-debit agreement goes with the first payment on the page and with every merchant-initiated charge', async () => {
    const agreement = { id: 'agr-mpgs-7', type: 'recurring' };
    // payment_type auto_debit saves without asking: picking MPGS goes straight to its page.
    const created = await d.create({
      pg_codes: [SAVING],
      customer_id: 'cust-agr',
      payment_type: 'auto_debit',
      agreement,
    });
    const firstId = String(created.session_id);
    const picked = await get(`/b/checkout/pay/${SAVING}?session_id=${firstId}`);
    assert.equal(picked.status, 200);
    const session = /data-session-id="([^"]+)"/.exec(await picked.text())?.[1] ?? '';
    const first = { id: firstId, session };
    const initiated = sim.requestsFor('INITIATE_CHECKOUT').at(-1)!.body as Record<string, unknown>;
    assert.deepEqual(initiated.sourceOfFunds, { provided: { card: { storedOnFile: 'TO_BE_STORED' } } });
    assert.deepEqual(initiated.agreement, { id: 'agr-mpgs-7', type: 'RECURRING' });
    assert.equal(await payOnMpgs(first), 'paid');
    const [card] = await cardsOf('cust-agr');
    assert.ok(card, 'the card is saved');
    const tx = await d.create({
      pg_codes: [SAVING],
      customer_id: 'cust-agr',
      payment_type: 'auto_debit',
      agreement,
      amount: '9.000',
    });
    const res = await autoDebit(String(tx.session_id), card.token).expect(200);
    assert.equal(res.body.result, 'success');
    const body = sim.requestsFor('PAY').at(-1)!.body as PayBody & { agreement?: unknown };
    assert.equal(body.transaction.source, 'MERCHANT');
    assert.equal(body.sourceOfFunds.provided?.card?.storedOnFile, 'STORED');
    assert.deepEqual(body.agreement, { id: 'agr-mpgs-7', type: 'RECURRING' });
  });

  it('money audit: every MPGS charge is one paid transaction, and reconciliation reports no mismatch', async () => {
    await sim.notifier.settled();
    await assertMoneyAudit(t, ds, sim, since);
  });
});
