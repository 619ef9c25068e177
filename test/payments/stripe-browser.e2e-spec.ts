// test-legs: sqlite only — pages in a browser: what the data layer does under them is tested on both legs (docs/testing.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { adminEvents } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { launchChromium } from '../setup/chromium';
import { seedBasics } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { seedStripeGateways, stripeSettings } from './stripe-helpers';

/**
 * The customer's round trip through Stripe in a real browser (contract §20): checkout page → pick
 * Stripe (303 to the simulated hosted page) → pay, decline or cancel there → back through the
 * return URL → result page, redirect_url, or the checkout page again.
 */
describe('Stripe through the checkout page in a real browser', () => {
  let t: TestApp;
  let d: TransactionDriver;
  let sim: StripeSimulator;
  let browser: Browser;

  before(async () => {
    sim = await StripeSimulator.start();
    t = await startApp({ overrides: [stripeSettings(() => sim)] });
    sim.webhookUrl = `${t.url}/b/checkout/v1/gateways/stripe/notify/`;
    const s = await seedBasics(t);
    await seedStripeGateways(t);
    d = new TransactionDriver(t, s.apiKey);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
    await t?.close();
  });

  /** A new Stripe transaction's checkout page, then the pick: the browser is on Stripe's page. */
  async function onStripePage(overrides: Record<string, unknown> = {}): Promise<{ page: Page; id: string }> {
    const tx = await d.create({ pg_codes: ['stripe'], ...overrides });
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${t.url}/b/checkout/txn/${String(tx.session_id)}`);
    await page.locator('a.method').first().click();
    await page.waitForURL(`${sim.baseUrl}/c/pay/**`);
    assert.equal(await page.locator('#amount').textContent(), '86.000 KWD');
    return { page, id: String(tx.session_id) };
  }

  it('pays on Stripe’s page and lands on the result page, paid', async () => {
    const { page, id } = await onStripePage();
    await page.locator('#cardNumber').fill('4242424242424242');
    await page.locator('#submit').click();
    await page.waitForURL(`${t.url}/b/checkout/v1/gateways/stripe/return/**`);
    assert.ok(await page.locator('[data-testid="reference"]').isVisible());
    assert.equal(String((await d.get(id)).state), 'paid');
    await sim.settled();
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
    await page.context().close();
  });

  it('goes on to the merchant’s redirect_url with the outcome', async () => {
    const { page, id } = await onStripePage({ redirect_url: `${t.url}/b/checkout/static/checkout.css` });
    await page.locator('#cardNumber').fill('4242424242424242');
    await page.locator('#submit').click();
    await page.waitForURL('**/static/checkout.css?**');
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('session_id'), id);
    assert.equal(url.searchParams.get('state'), 'paid');
    await page.context().close();
  });

  it('a declined card, then cancel: back on the checkout page, which can still be paid', async () => {
    const { page, id } = await onStripePage();
    await page.locator('#cardNumber').fill('4000000000000002');
    await page.locator('#submit').click();
    await page.locator('#error').waitFor();
    await page.locator('#cancel').click();
    await page.waitForURL(`${t.url}/b/checkout/txn/${id}`);
    assert.ok(await page.locator('a.method').first().isVisible(), 'still payable');
    assert.equal(String((await d.get(id)).state), 'failed');
    // and then paid with another card, through a new session
    await page.locator('a.method').first().click();
    await page.waitForURL(`${sim.baseUrl}/c/pay/**`);
    await page.locator('#cardNumber').fill('4242424242424242');
    await page.locator('#submit').click();
    await page.waitForURL(`${t.url}/b/checkout/v1/gateways/stripe/return/**`);
    assert.equal(String((await d.get(id)).state), 'paid');
    await page.context().close();
  });

  it('cancel on Stripe’s page: the transaction is still payable', async () => {
    const { page, id } = await onStripePage();
    await page.locator('#cancel').click();
    await page.waitForURL(`${t.url}/b/checkout/txn/${id}`);
    assert.equal(String((await d.get(id)).state), 'created');
    await page.context().close();
  });
});
