import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminEvents, eventually, FAST_DELIVERY_ENV } from '../events/event-helpers';
import { TEST_CARDS, testPayPath, TransactionDriver } from '../factories/transaction-states';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';

const CASH = '/b/pbl/v2/payment/cash/';
const CASH_ALIAS = '/b/pbl/v2/cash-payment/';
const GATEWAYS = '/b/checkout/v1/admin/gateways/';
const INSTRUCTIONS = 'Pay at our Salmiya branch, Salem Al Mubarak St., 9:00–21:00.';

/** contract §16: cash gateways (flow `offline`) and the merchant's acknowledgement of the money. */
describe('cash payments', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({ env: FAST_DELIVERY_ENV });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  const addGateway = (body: object) => t.http().post(GATEWAYS).set('Authorization', adminAuth()).send(body);
  const cashGateway = (extra: object = {}) => ({
    code: 'cash-main',
    name: 'Cash at the shop',
    pg: 'cash',
    type: 'production',
    currencies: ['KWD'],
    instructions: INSTRUCTIONS,
    ...extra,
  });
  const acknowledge = (sessionId: string, path = CASH, headers: Record<string, string> = {}) =>
    t.http().post(path).set('Authorization', s.apiKey).set(headers).send({ session_id: sessionId });
  const cashTransaction = async (extra: object = {}) =>
    String((await d.create({ pg_codes: ['cash-main'], webhook_url: hook.url, ...extra })).session_id);

  it('an admin adds a cash gateway: flow offline, not tokenizable, with its instructions', async () => {
    const res = await addGateway(cashGateway()).expect(201);
    assert.equal(res.body.flow, 'offline');
    assert.equal(res.body.tokenizable, false);
    assert.equal(res.body.operation, 'purchase');
    assert.equal(res.body.instructions, INSTRUCTIONS);
  });

  it('refuses gateways whose flow, operation or card saving do not fit their pg', async () => {
    const refused = async (body: object, field: string) => {
      const res = await addGateway(body).expect(400);
      assert.deepEqual(Object.keys(res.body as object), [field], JSON.stringify(res.body));
    };
    await refused(cashGateway({ code: 'cash-2', flow: 'redirect' }), 'flow');
    await refused(cashGateway({ code: 'cash-3', operation: 'authorize' }), 'operation');
    await refused(cashGateway({ code: 'cash-4', tokenizable: true }), 'tokenizable');
    await refused(cashGateway({ code: 'card-2', pg: 'sandbox', type: 'sandbox', flow: 'offline' }), 'flow');
    await refused(cashGateway({ code: 'cash-5', instructions: 'x'.repeat(1001) }), 'instructions');
    await refused(cashGateway({ code: 'cash-6', instructions: 7 }), 'instructions');
    await refused(cashGateway({ code: 'cash-7', instructions: null }), 'instructions');
    const patch = await t
      .http()
      .patch(`${GATEWAYS}sandbox/`)
      .set('Authorization', adminAuth())
      .send({ flow: 'offline' })
      .expect(400);
    assert.deepEqual(Object.keys(patch.body as object), ['flow']);
    const list = await t.http().get(GATEWAYS).set('Authorization', adminAuth()).expect(200);
    assert.deepEqual(
      (list.body as { code: string; flow: string }[]).map((g) => [g.code, g.flow]).sort(),
      [
        ['cash-main', 'offline'],
        ['sandbox', 'redirect'],
      ],
      'nothing refused was written',
    );
  });

  it('the payment page shows the instructions and no card form; a posted card is not charged', async () => {
    const tx = await d.create({ pg_codes: ['cash-main'] });
    const id = String(tx.session_id);
    const method = (tx.payment_methods as { redirect_url: string; flow: string }[])[0];
    const pageUrl = new URL(method.redirect_url);
    const pagePath = pageUrl.pathname + pageUrl.search;
    const page = await t.http().get(pagePath).expect(200);
    assert.match(page.text, /data-testid="cash-instructions">Pay at our Salmiya branch/);
    // The page says what it is for: cash, not a card.
    assert.match(page.text, /<h1 id="page-title">Cash payment<\/h1>/);
    assert.match(page.text, /<title>Cash payment · /);
    assert.doesNotMatch(page.text, /Card payment/);
    assert.doesNotMatch(page.text, /class="pay"/);
    assert.doesNotMatch(page.text, /name="card"/);
    // A forged card post, with a valid CSRF pair taken from the checkout page's cancel form.
    const checkout = await t.http().get(`/b/checkout/txn/${id}`).expect(200);
    const cookie = String(checkout.headers['set-cookie']?.[0] ?? '').split(';')[0];
    const token = /name="csrf_token" value="([0-9a-f]{64})"/.exec(checkout.text)?.[1] ?? '';
    assert.ok(cookie && token);
    const posted = await t
      .http()
      .post(pagePath)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: token, card: TEST_CARDS.success.replace(/ /g, ''), expiry: '12/39', cvc: '123' });
    assert.equal(posted.status, 400);
    assert.equal((await d.get(id)).state, 'created');
    const helper = await t
      .http()
      .post(testPayPath(id))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success });
    assert.ok([400, 403].includes(helper.status), `test helper answered ${helper.status}`);
    assert.equal((await d.get(id)).state, 'created');
  });

  it('the Arabic payment page of a cash gateway is titled for cash too', async () => {
    const tx = await d.create({ pg_codes: ['cash-main'], language: 'ar' });
    const method = (tx.payment_methods as { redirect_url: string }[])[0];
    const pageUrl = new URL(method.redirect_url);
    const page = await t
      .http()
      .get(pageUrl.pathname + pageUrl.search)
      .expect(200);
    assert.ok(page.text.includes('<html lang="ar" dir="rtl">'));
    assert.match(page.text, /<h1 id="page-title">الدفع نقدًا<\/h1>/);
    assert.doesNotMatch(page.text, /الدفع بالبطاقة/);
  });

  it('the acknowledgement pays: 200 with the paid webhook payload, the event delivered', async () => {
    const id = await cashTransaction();
    const res = await acknowledge(id).expect(200);
    assert.equal(res.body.event, 'paid');
    assert.equal(res.body.state, 'paid');
    assert.equal(res.body.result, 'success');
    assert.equal(res.body.paid_amount, '86.000');
    assert.equal(res.body.gateway_account, 'cash-main');
    assert.equal(res.body.is_sandbox, false);
    assert.match(String(res.body.reference_number), /^[0-9A-F]{19}$/);
    assert.equal((res.body.gateway_response as { result: string }).result, 'success');
    assert.equal((await d.get(id)).state, 'paid');
    const webhook = await eventually(
      () => Promise.resolve(hook.received.find((r) => r.json.session_id === id && r.json.event === 'paid')),
      10_000,
      'the paid webhook',
    );
    assert.equal(webhook.json.event_id, res.body.event_id);
    const again = await acknowledge(id).expect(409);
    assert.match(String(again.body.detail), /paid/);
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });

  it('the alias route acknowledges too; a refund gives the cash back', async () => {
    const id = await cashTransaction();
    await acknowledge(id, CASH_ALIAS).expect(200);
    const refund = await d.operate({ operation: 'refund', session_id: id, amount: '6' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal((await d.get(id)).refunded_amount, '6.000');
  });

  it('five acknowledgements at once pay once', async () => {
    const id = await cashTransaction();
    const answers = await Promise.all(Array.from({ length: 5 }, () => acknowledge(id)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409, 409]);
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
  });

  it('an Idempotency-Key repeat answers the first result without paying again', async () => {
    const id = await cashTransaction();
    const first = await acknowledge(id, CASH, { 'Idempotency-Key': `cash-${id}` }).expect(200);
    const repeat = await acknowledge(id, CASH, { 'Idempotency-Key': `cash-${id}` }).expect(200);
    assert.deepEqual(repeat.body, first.body);
    assert.equal((await adminEvents(t, id)).length, 2);
  });

  it('refuses a card gateway, unknown or malformed sessions, and Basic credentials', async () => {
    const card = String((await d.create()).session_id);
    const res = await acknowledge(card).expect(400);
    assert.deepEqual(res.body, { session_id: ['The transaction\'s gateway "sandbox" does not take cash.'] });
    assert.equal((await d.get(card)).state, 'created');
    await acknowledge('f'.repeat(40)).expect(404);
    const malformed = await acknowledge('nope').expect(400);
    assert.ok(Array.isArray(malformed.body.session_id));
    const missing = await t.http().post(CASH).set('Authorization', s.apiKey).send({}).expect(400);
    assert.ok(Array.isArray(missing.body.session_id));
    const id = await cashTransaction();
    await t.http().post(CASH).set('Authorization', s.merchant).send({ session_id: id }).expect(401);
    assert.equal((await d.get(id)).state, 'created');
  });

  it('a cash transaction cannot ask to save a card', async () => {
    const res = await t
      .http()
      .post('/b/checkout/v1/pymt-txn/')
      .set('Authorization', s.apiKey)
      .send({
        type: 'payment_request',
        amount: '5',
        currency_code: 'KWD',
        pg_codes: ['cash-main'],
        customer_id: 'cust-cash',
        payment_type: 'save_card',
      })
      .expect(400);
    assert.ok(Array.isArray(res.body.payment_type));
  });
});
