// test-legs: sqlite only — pages in a browser: what the data layer does under them is tested on both legs (docs/testing.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { adminEvents, eventually } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { MpgsSimulator } from '../providers/mpgs/mpgs-simulator';
import { launchChromium } from '../setup/chromium';
import { seedBasics } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { mpgsSettings, seedMpgsGateways } from './mpgs-helpers';

/**
 * The customer's round trip through MPGS Hosted Checkout in a real browser (contract §20): checkout
 * page → pick MPGS (our page, which loads the simulator's `checkout.min.js` and hands the session
 * over under its CSP) → pay, decline or cancel on the simulated Hosted Payment Page → back through
 * the return URL → result page, or the checkout page again.
 */
describe('MPGS through the checkout page in a real browser', () => {
  let t: TestApp;
  let d: TransactionDriver;
  let sim: MpgsSimulator;
  let browser: Browser;

  before(async () => {
    sim = await new MpgsSimulator().start();
    t = await startApp({ overrides: [mpgsSettings(() => sim)] });
    const s = await seedBasics(t);
    await seedMpgsGateways(t);
    d = new TransactionDriver(t, s.apiKey);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
    await t?.close();
  });

  /**
   * A new MPGS transaction's checkout page, then the pick: the browser ends on the hosted page.
   * `problems` collects what the browser refused or failed (a CSP violation among them).
   */
  async function onHostedPage(): Promise<{ page: Page; id: string; problems: string[] }> {
    const tx = await d.create({ pg_codes: ['mpgs'] });
    const id = String(tx.session_id);
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${t.url}/b/checkout/txn/${id}`);
    const loads = sim.scriptLoads;
    await page.locator('a.method').first().click();
    await page.waitForURL(`${sim.url}/checkout/pay/**`);
    assert.equal(sim.scriptLoads, loads + 1, 'our page loaded the provider’s checkout.min.js');
    assert.equal(await page.locator('#amount').textContent(), '86.000 KWD');
    return { page, id, problems };
  }

  async function fillCard(page: Page, number: string, expiry: string): Promise<void> {
    await page.getByLabel('Card number').fill(number);
    await page.getByLabel('Expiry date (MM/YY)').fill(expiry);
    await page.getByLabel('Security code').fill('100');
    await page.getByLabel('Cardholder name').fill('Test Customer');
  }

  it('pays with a test card on the hosted page and lands on the result page, paid', async () => {
    const { page, id, problems } = await onHostedPage();
    await fillCard(page, '5123 4500 0000 0008', '01/39');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${t.url}/b/checkout/v1/gateways/mpgs/return/**`);
    assert.ok(await page.locator('[data-testid="reference"]').isVisible());
    assert.equal(await page.locator('[data-state]').getAttribute('data-state'), 'paid');
    assert.equal(String((await d.get(id)).state), 'paid');
    await sim.notifier.settled();
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
    assert.deepEqual(problems, [], 'nothing refused by the CSP, no script errors');
    await page.context().close();
  });

  it('a declined card: MPGS keeps the payer on its page; another card there pays, and the result page says paid', async () => {
    const { page, id } = await onHostedPage();
    await fillCard(page, '5123450000000008', '05/39');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(new URL(page.url()).origin, sim.url, 'still on the hosted page');
    await sim.notifier.settled();
    await eventually(async () => (String((await d.get(id)).state) === 'failed' ? true : undefined));
    await fillCard(page, '5123450000000008', '01/39');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${t.url}/b/checkout/v1/gateways/mpgs/return/**`);
    assert.equal(await page.locator('[data-state]').getAttribute('data-state'), 'paid');
    assert.equal(String((await d.get(id)).state), 'paid');
    await sim.notifier.settled();
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'failed', 'paid'],
    );
    await page.context().close();
  });

  it('cancel on the hosted page: back on the checkout page, which can still be paid', async () => {
    const { page, id } = await onHostedPage();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${t.url}/b/checkout/txn/${id}`);
    assert.ok(await page.locator('a.method').first().isVisible(), 'still payable');
    assert.equal(String((await d.get(id)).state), 'created');
    await page.context().close();
  });

  it('a provider script that never loads: our page says so and links back to checkout', async () => {
    const tx = await d.create({ pg_codes: ['mpgs'] });
    const id = String(tx.session_id);
    const page = await (await browser.newContext()).newPage();
    await page.route(`${sim.url}/static/checkout/checkout.min.js`, (route) => route.abort());
    await page.goto(`${t.url}/b/checkout/pay/mpgs?session_id=${id}`);
    await page.locator('[data-testid="provider-failed"]').waitFor({ state: 'visible' });
    assert.equal(
      await page.getByRole('link', { name: 'Back to checkout' }).getAttribute('href'),
      `/b/checkout/txn/${id}`,
    );
    await page.context().close();
  });
});
