import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AdminConfigService } from '../../src/admin-config/admin-config.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { cardForm, openPaymentPage } from './page-helpers';

const MERCHANT = 'https://shop.example/return?from=checkout';

describe('hosted checkout and payment pages', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
    await t.app
      .get(GatewaysService)
      .create(gatewayInput({ code: 'sandbox-auth', name: 'Sandbox authorize', operation: 'authorize' }));
    await t.app.get(AdminConfigService).update({ merchantName: 'Acme <Shop> & Co' });
    d = new TransactionDriver(t, s.apiKey);
  });
  after(() => t.close());

  it('redirects checkout_url to the checkout page, which shows merchant, amount, fee, deadline and methods', async () => {
    const tx = await d.create({ redirect_url: MERCHANT, order_no: 'A-1' });
    const start = new URL(String(tx.checkout_url));
    const redirect = await t
      .http()
      .get(start.pathname + start.search)
      .expect(302);
    assert.equal(redirect.headers.location, `/b/checkout/txn/${String(tx.session_id)}`);
    const page = await t.http().get(redirect.headers.location).expect(200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.ok(page.text.includes('Acme &lt;Shop&gt; &amp; Co'), 'merchant name, escaped');
    assert.ok(!page.text.includes('<Shop>'));
    assert.ok(page.text.includes('86.000 KWD'));
    assert.ok(page.text.includes('Sandbox card'));
    assert.ok(
      page.text.includes(
        `href="${String((tx.payment_methods as { redirect_url: string }[])[0].redirect_url)}"`,
      ),
    );
    assert.ok(page.text.includes(`datetime="${String(tx.expires_at)}"`));
    assert.ok(page.text.includes('Cancel payment'));
    assert.equal(
      page.headers['content-security-policy'],
      "default-src 'none'; style-src 'self'; img-src 'self' " +
        `${t.url}; form-action 'self' https://shop.example; base-uri 'none'; frame-ancestors 'none'`,
    );
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(
      String(page.headers['set-cookie']),
      /checkout_csrf=[0-9a-f]{64}; Path=\/b\/checkout; HttpOnly; SameSite=Lax/,
    );
  });

  it('answers unknown sessions with a 404 page, not JSON', async () => {
    const res = await t
      .http()
      .get(`/b/checkout/redirect/start/?session_id=${'a'.repeat(40)}`)
      .expect(404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(res.text.includes('This payment link does not exist.'));
    await t.http().get('/b/checkout/redirect/start/').expect(404);
    await t
      .http()
      .get(`/b/checkout/txn/${'a'.repeat(40)}/`)
      .expect(404);
  });

  it('pays on the payment page and sends the customer to redirect_url with the outcome', async () => {
    const tx = await d.create({ redirect_url: MERCHANT, order_no: 'A-2' });
    const method = (tx.payment_methods as { redirect_url: string }[])[0];
    const { cookie, token, path } = await openPaymentPage(t, method.redirect_url);
    const res = await t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: token, ...cardForm(TEST_CARDS.success), amount: '0.001', currency_code: 'JPY' })
      .expect(303);
    const landing = new URL(String(res.headers.location));
    assert.equal(landing.origin + landing.pathname, 'https://shop.example/return');
    assert.equal(landing.searchParams.get('from'), 'checkout');
    assert.equal(landing.searchParams.get('session_id'), tx.session_id);
    assert.equal(landing.searchParams.get('order_no'), 'A-2');
    assert.equal(landing.searchParams.get('state'), 'paid');
    assert.match(String(landing.searchParams.get('reference_number')), /^[0-9A-F]{19}$/);
    const now = await d.get(String(tx.session_id));
    assert.deepEqual(
      [now.state, now.amount, now.paid_amount, now.currency_code],
      ['paid', '86.000', '86.000', 'KWD'],
    );
  });

  it('refuses a form post without the CSRF token, or with a token that is not the cookie', async () => {
    const tx = await d.create();
    const method = (tx.payment_methods as { redirect_url: string }[])[0];
    const { cookie, token, path } = await openPaymentPage(t, method.redirect_url);
    const none = await t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ card: TEST_CARDS.success })
      .expect(403);
    assert.match(String(none.headers['content-type']), /^text\/html/);
    await t
      .http()
      .post(path)
      .type('form')
      .send({ csrf_token: token, ...cardForm(TEST_CARDS.success) })
      .expect(403);
    await t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: 'b'.repeat(64), ...cardForm(TEST_CARDS.success) })
      .expect(403);
    const cancel = await t
      .http()
      .post(`/b/checkout/txn/${String(tx.session_id)}/cancel`)
      .type('form')
      .send({ csrf_token: token })
      .expect(403);
    assert.ok(cancel.text.includes('This form has expired'));
    assert.equal((await d.get(String(tx.session_id))).state, 'created');
  });

  it('shows the form again with an error for a malformed card number', async () => {
    const tx = await d.create();
    const method = (tx.payment_methods as { redirect_url: string }[])[0];
    const { cookie, token, path } = await openPaymentPage(t, method.redirect_url);
    const res = await t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: token, ...cardForm('4111') })
      .expect(400);
    assert.ok(res.text.includes('Enter a valid card number.'));
    assert.ok(res.text.includes('aria-invalid="true"'));
    assert.ok(!res.text.includes('value="4111"'), 'the card number is not echoed back');
    assert.equal((await d.get(String(tx.session_id))).state, 'created');
  });

  it('shows a result page when there is no redirect_url, and uses the admin default when set', async () => {
    const tx = await d.create();
    const method = (tx.payment_methods as { redirect_url: string }[])[0];
    const { cookie, token, path } = await openPaymentPage(t, method.redirect_url);
    const res = await t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: token, ...cardForm(TEST_CARDS.declined) })
      .expect(200);
    assert.ok(res.text.includes('The payment was declined. You can try again.'));
    assert.match(res.text, /data-testid="reference">[0-9A-F]{19}</);

    await t.app.get(AdminConfigService).update({ defaultRedirectUrl: 'https://default.example/done' });
    try {
      const again = await t
        .http()
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send({ csrf_token: token, ...cardForm(TEST_CARDS.error) })
        .expect(303);
      const landing = new URL(String(again.headers.location));
      assert.equal(landing.origin, 'https://default.example');
      assert.equal(landing.searchParams.get('state'), 'error');
      assert.equal(landing.searchParams.get('order_no'), '');
    } finally {
      await t.app.get(AdminConfigService).update({ defaultRedirectUrl: null });
    }
  });

  it('cancels from the checkout page', async () => {
    const tx = await d.create({ redirect_url: MERCHANT, order_no: 'A-3' });
    const page = await t
      .http()
      .get(`/b/checkout/txn/${String(tx.session_id)}`)
      .expect(200);
    const cookie = String(page.headers['set-cookie']?.[0] ?? '').split(';')[0];
    const token = /name="csrf_token" value="([0-9a-f]{64})"/.exec(page.text)?.[1] ?? '';
    const res = await t
      .http()
      .post(`/b/checkout/txn/${String(tx.session_id)}/cancel`)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: token })
      .expect(303);
    const landing = new URL(String(res.headers.location));
    assert.equal(landing.searchParams.get('state'), 'canceled');
    assert.equal(landing.searchParams.get('reference_number'), '');
    assert.equal((await d.get(String(tx.session_id))).state, 'canceled');
    const after = await t
      .http()
      .get(`/b/checkout/txn/${String(tx.session_id)}`)
      .expect(200);
    assert.ok(after.text.includes('This payment was canceled.'));
    assert.ok(!after.text.includes('Cancel payment'));
  });

  it('shows the state instead of a form once the transaction is not payable', async () => {
    const id = await d.inState('paid');
    const tx = await d.get(id);
    const method = (tx.payment_methods as { redirect_url: string }[])[0];
    const page = await t
      .http()
      .get(new URL(method.redirect_url).pathname + new URL(method.redirect_url).search)
      .expect(200);
    assert.ok(page.text.includes('This payment is complete.'));
    assert.ok(!page.text.includes('Card number'));
    const checkout = await t.http().get(`/b/checkout/txn/${id}`).expect(200);
    assert.ok(!checkout.text.includes('Payment methods'));
  });

  it('expires a payable transaction opened after its deadline and shows that', async () => {
    const tx = await d.create({ expiration_time: '00:00:01' });
    await sleep(1100);
    const page = await t
      .http()
      .get(`/b/checkout/txn/${String(tx.session_id)}`)
      .expect(200);
    assert.ok(page.text.includes('This payment link has expired.'));
    assert.equal((await d.get(String(tx.session_id))).state, 'expired');
  });

  it('answers 404 for a payment page of another gateway code', async () => {
    const tx = await d.create();
    await t
      .http()
      .get(`/b/checkout/pay/sandbox-auth/?session_id=${String(tx.session_id)}`)
      .expect(404);
    await t.http().get(`/b/checkout/pay/sandbox/?session_id=nope`).expect(404);
  });

  it('renders Arabic pages right-to-left', async () => {
    const tx = await d.create({ language: 'ar' });
    const page = await t
      .http()
      .get(`/b/checkout/txn/${String(tx.session_id)}`)
      .expect(200);
    assert.ok(page.text.includes('<html lang="ar" dir="rtl">'));
    assert.ok(page.text.includes('إلغاء الدفع'));
    // A card gateway's payment page is titled for a card, in either language (a cash one: cash).
    const method = (tx.payment_methods as { redirect_url: string }[])[0];
    assert.match(
      (await openPaymentPage(t, method.redirect_url)).html,
      /<h1 id="page-title">الدفع بالبطاقة<\/h1>/,
    );
    const english = (await d.create()).payment_methods as { redirect_url: string }[];
    assert.match(
      (await openPaymentPage(t, english[0].redirect_url)).html,
      /<h1 id="page-title">Card payment<\/h1>/,
    );
  });

  it('serves its stylesheet and the default gateway icon from its own origin', async () => {
    const css = await t.http().get('/b/checkout/static/checkout.css').expect(200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    const icon = await t.http().get('/b/checkout/static/icons/sandbox.svg').expect(200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    await t.http().get('/b/checkout/static/icons/..%2Fetc.svg').expect(404);
  });
});
