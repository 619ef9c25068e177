// test-legs: sqlite only — pages in a browser: what the data layer does under them is tested on both legs (docs/testing.md).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import { gatewayInput, Seeded, seedBasics } from '../setup/fixtures';
import { launchChromium } from '../setup/chromium';
import { startApp, TestApp } from '../setup/test-app';

const ARTIFACTS = join(process.cwd(), 'test', 'artifacts');

/** Fills the payment form's card fields (contract §15): the number given, the rest valid. */
async function fillCard(page: Page, card: string): Promise<void> {
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry date (MM/YY)').fill('12/39');
  await page.getByLabel('Security code (CVC)', { exact: true }).fill('123');
  await page.getByLabel('Name on card').fill('Test Customer');
}

/** With saved cards: only the chosen group's fields are visible (the saved card's CVC, or the new card's). */
async function assertChoiceShows(page: Page, chosen: 'saved card' | 'new card'): Promise<void> {
  const visible = async (label: string) => page.getByLabel(label, { exact: true }).isVisible();
  const newCard = chosen === 'new card';
  assert.equal(await visible('Security code (CVC) of the saved card'), !newCard, `${chosen}: saved CVC`);
  for (const label of ['Card number', 'Expiry date (MM/YY)', 'Security code (CVC)', 'Name on card']) {
    assert.equal(await visible(label), newCard, `${chosen}: ${label}`);
  }
  assert.equal(await visible('Save this card for future payments'), newCard, `${chosen}: save box`);
}

/** The merchant's site: records every request's URL and says thanks. */
async function startMerchantSite(): Promise<{ url: string; visits: URL[]; server: Server }> {
  const visits: URL[] = [];
  const server = createServer((req, res) => {
    visits.push(new URL(req.url ?? '/', 'http://merchant.invalid'));
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Merchant</title><h1>Thank you</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, visits, server };
}

describe('checkout in a real browser (Debian chromium)', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let browser: Browser;
  let merchant: Awaited<ReturnType<typeof startMerchantSite>>;

  before(async () => {
    [t, merchant, browser] = await Promise.all([startApp(), startMerchantSite(), launchChromium()]);
    s = await seedBasics(t);
    await t.app
      .get(GatewaysService)
      .create(gatewayInput({ code: 'sandbox-auth', name: 'Sandbox authorize', operation: 'authorize' }));
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await browser?.close();
    merchant?.server.close();
    await t?.close();
  });

  /** A fresh page that fails the test on any CSP violation or page error. */
  async function newPage(): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      // Chromium's own /favicon.ico probe is not the page's doing.
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) {
        problems.push(`${m.text()} (${m.location().url})`);
      }
    });
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { page, problems, close: () => context.close() };
  }

  const cases = [
    { card: TEST_CARDS.success, state: 'paid', gateway: 'sandbox', method: 'Sandbox card' },
    { card: TEST_CARDS.declined, state: 'failed', gateway: 'sandbox', method: 'Sandbox card' },
    { card: TEST_CARDS.error, state: 'error', gateway: 'sandbox', method: 'Sandbox card' },
    { card: TEST_CARDS.success, state: 'authorized', gateway: 'sandbox-auth', method: 'Sandbox authorize' },
  ] as const;

  for (const c of cases) {
    it(`pays with ${c.card} through ${c.gateway} and lands on redirect_url with state ${c.state}`, async () => {
      const orderNo = `B-${c.state}`;
      const tx = await d.create({
        pg_codes: [c.gateway],
        order_no: orderNo,
        redirect_url: `${merchant.url}/return?shop=demo`,
      });
      const { page, problems, close } = await newPage();
      try {
        await page.goto(String(tx.checkout_url));
        await page.getByRole('heading', { name: 'Checkout' }).waitFor();
        assert.equal(await page.getByTestId('amount').textContent(), '86.000 KWD');
        // The stylesheet loaded under the CSP.
        assert.equal(
          await page.evaluate("getComputedStyle(document.querySelector('main')).backgroundColor"),
          'rgb(255, 255, 255)',
        );
        if (c.state === 'paid') {
          mkdirSync(ARTIFACTS, { recursive: true });
          await page.screenshot({ path: join(ARTIFACTS, 'checkout-page.png'), fullPage: true });
        }
        await page.getByRole('link', { name: c.method }).click();
        await fillCard(page, c.card);
        await page.getByRole('button', { name: 'Pay' }).click();
        await page.waitForURL((url) => url.href.startsWith(`${merchant.url}/return`));

        const landed = new URL(page.url());
        assert.equal(landed.searchParams.get('shop'), 'demo');
        assert.equal(landed.searchParams.get('session_id'), tx.session_id);
        assert.equal(landed.searchParams.get('order_no'), orderNo);
        assert.equal(landed.searchParams.get('state'), c.state);
        assert.match(String(landed.searchParams.get('reference_number')), /^[0-9A-F]{19}$/);
        assert.ok(merchant.visits.some((v) => v.searchParams.get('session_id') === tx.session_id));

        const now = await d.get(String(tx.session_id));
        assert.equal(now.state, c.state);
        assert.equal(now.paid_amount, c.state === 'paid' ? '86.000' : '0.000');
        assert.deepEqual(problems, []);
      } finally {
        await close();
      }
    });
  }

  it('pays with the keyboard only: the card fields, then Pay, in focus order', async () => {
    const tx = await d.create({ redirect_url: `${merchant.url}/return` });
    const { page, problems, close } = await newPage();
    try {
      const method = (tx.payment_methods as { redirect_url: string }[])[0];
      await page.goto(method.redirect_url);
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.id'), 'card');
      await page.keyboard.type(TEST_CARDS.success);
      for (const [id, text] of [
        ['expiry', '12/39'],
        ['cvc', '123'],
        ['name_on_card', 'Test Customer'],
      ]) {
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate('document.activeElement.id'), id);
        await page.keyboard.type(text);
      }
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.textContent.trim()'), 'Pay');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.href.startsWith(`${merchant.url}/return`));
      assert.equal(new URL(page.url()).searchParams.get('state'), 'paid');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('checks each card field, saves the card when asked, and offers it on the next payment (contract §15)', async () => {
    const customer = { customer_id: 'browser-customer', redirect_url: `${merchant.url}/return` };
    const first = await d.create(customer);
    const { page, problems, close } = await newPage();
    try {
      const method = (first.payment_methods as { redirect_url: string }[])[0];
      await page.goto(method.redirect_url);
      await page.getByLabel('Card number').fill('4111 1111 1111 1112');
      await page.getByLabel('Expiry date (MM/YY)').fill('01/20');
      await page.getByLabel('Security code (CVC)', { exact: true }).fill('12');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.getByText('This card has expired.').waitFor();
      for (const [label, message] of [
        ['Card number', 'Enter a valid card number.'],
        ['Expiry date (MM/YY)', 'This card has expired.'],
        ['Security code (CVC)', 'Enter the 3 or 4 digits of the security code.'],
        ['Name on card', 'This field is required.'],
      ]) {
        // Each message is tied to its field for screen readers.
        const field = page.getByLabel(label, { exact: true });
        assert.equal(await field.getAttribute('aria-invalid'), 'true', label);
        const described = String(await field.getAttribute('aria-describedby'));
        assert.ok(described.includes(`${String(await field.getAttribute('id'))}-error`), label);
        assert.equal(
          await page.locator(`#${String(await field.getAttribute('id'))}-error`).textContent(),
          message,
        );
      }
      assert.equal(await page.getByLabel('Card number').inputValue(), '', 'the number is not shown again');
      assert.equal((await d.get(String(first.session_id))).state, 'created', 'nothing charged');

      await fillCard(page, TEST_CARDS.success);
      const save = page.getByLabel('Save this card for future payments');
      assert.equal(await save.isChecked(), false, 'unticked unless payment_type asks');
      await save.check();
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'payment-page-card-form.png'), fullPage: true });
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${merchant.url}/return`));
      assert.equal(new URL(page.url()).searchParams.get('state'), 'paid');

      const second = await d.create(customer);
      await page.goto((second.payment_methods as { redirect_url: string }[])[0].redirect_url);
      // The page names the card by a reference of its own, never by the card's token.
      const [{ token }] = (
        await t
          .http()
          .post('/b/pbl/v2/card/')
          .set('Authorization', s.apiKey)
          .send({ customer_id: customer.customer_id, type: 'sandbox' })
          .expect(200)
      ).body as { token: string }[];
      assert.ok(!(await page.content()).includes(token), 'no card token in the page');
      // Each choice is a group of its own, and only the chosen one's fields show.
      const savedGroup = page.getByRole('group', { name: 'Your saved cards' });
      const newGroup = page.getByRole('group', { name: 'A new card' });
      assert.equal(await newGroup.getByLabel('Card number').count(), 1, 'the new card fields are its group');
      assert.equal(await savedGroup.getByLabel('Security code (CVC) of the saved card').count(), 1);
      await assertChoiceShows(page, 'new card');
      const savedCard = page.getByLabel('Visa **** 1111 · 12/2039');
      await savedCard.check();
      await assertChoiceShows(page, 'saved card');
      await page.getByLabel('A new card').check();
      await assertChoiceShows(page, 'new card');
      // The page runs no script: the same without JavaScript.
      const noScript = await browser.newContext({ javaScriptEnabled: false });
      try {
        const bare = await noScript.newPage();
        await bare.goto(page.url());
        await assertChoiceShows(bare, 'new card');
        await bare.getByLabel('Visa **** 1111 · 12/2039').check();
        await assertChoiceShows(bare, 'saved card');
      } finally {
        await noScript.close();
      }
      await savedCard.check();
      await page.getByLabel('Security code (CVC) of the saved card').fill('123');
      await page.screenshot({ path: join(ARTIFACTS, 'payment-page-saved-card.png'), fullPage: true });
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${merchant.url}/return`));
      assert.equal(new URL(page.url()).searchParams.get('state'), 'paid');
      assert.equal((await d.get(String(second.session_id))).state, 'paid');
      // The one refused submission answered 400 on purpose; nothing else went wrong.
      assert.deepEqual(
        problems.filter((problem) => !problem.includes('400')),
        [],
      );
      assert.ok(
        problems.length > 0 && problems.every((problem) => problem.includes('/b/checkout/pay/sandbox/')),
      );
    } finally {
      await close();
    }
  });

  it('cancels from the checkout page and lands on redirect_url with state canceled', async () => {
    const tx = await d.create({ redirect_url: `${merchant.url}/return` });
    const { page, close } = await newPage();
    try {
      await page.goto(String(tx.checkout_url));
      await page.getByRole('button', { name: 'Cancel payment' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${merchant.url}/return`));
      assert.equal(new URL(page.url()).searchParams.get('state'), 'canceled');
      assert.equal((await d.get(String(tx.session_id))).state, 'canceled');
    } finally {
      await close();
    }
  });

  it('shows a result page when there is no redirect_url', async () => {
    const tx = await d.create();
    const { page, close } = await newPage();
    try {
      await page.goto(String(tx.checkout_url));
      await page.getByRole('link', { name: 'Sandbox card' }).click();
      await fillCard(page, TEST_CARDS.declined);
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.getByRole('heading', { name: 'Payment status' }).waitFor();
      assert.equal(
        await page.getByRole('status').textContent(),
        'The payment was declined. You can try again.',
      );
      await page.getByRole('link', { name: 'Try again' }).click();
      await page.getByRole('link', { name: 'Sandbox card' }).click();
      await fillCard(page, TEST_CARDS.success);
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.getByText('This payment is complete.').waitFor();
      assert.equal((await d.get(String(tx.session_id))).state, 'paid');
    } finally {
      await close();
    }
  });

  it('renders an Arabic checkout page right-to-left', async () => {
    const tx = await d.create({ language: 'ar' });
    const { page, problems, close } = await newPage();
    try {
      await page.goto(String(tx.checkout_url));
      await page.getByRole('heading', { name: 'الدفع', exact: true }).waitFor();
      assert.equal(await page.evaluate('document.documentElement.dir'), 'rtl');
      assert.equal(await page.evaluate('getComputedStyle(document.body).direction'), 'rtl');
      // Mirrored layout: the label ("المبلغ") sits to the right of the amount.
      const label = await page.locator('.summary dt').first().boundingBox();
      const value = await page.getByTestId('amount').boundingBox();
      assert.ok(label && value && label.x > value.x, 'label right of value');
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'checkout-page-ar.png'), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
