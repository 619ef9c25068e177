// test-legs: sqlite only — pages in a browser: what the data layer does under them is tested on both legs (docs/testing.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { adminEvents } from '../events/event-helpers';
import { TransactionDriver } from '../factories/transaction-states';
import { KnetSimulator } from '../providers/knet/knet-simulator';
import { launchChromium } from '../setup/chromium';
import { seedBasics } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { knetSettings, seedKnetGateways } from './knet-helpers';

/**
 * The customer's round trip through KNET in a real browser (contract §20; docs/gateways/knet.md):
 * checkout page → pick KNET (303 to the simulated payment URL, then KNET's hosted page) → pay or
 * cancel there → KNET posts the result to our notify URL server to server and sends the browser to
 * the URL of our `REDIRECT=` line → result page, or the checkout page again.
 */
describe('KNET through the checkout page in a real browser', () => {
  let t: TestApp;
  let d: TransactionDriver;
  let sim: KnetSimulator;
  let browser: Browser;

  before(async () => {
    sim = await KnetSimulator.start();
    t = await startApp({ overrides: [knetSettings(() => sim)] });
    const s = await seedBasics(t);
    await seedKnetGateways(t, sim);
    d = new TransactionDriver(t, s.apiKey);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await sim?.close();
    await t?.close();
  });

  const returnUrl = () => `${t.url}/b/checkout/v1/gateways/knet/return/`;

  /** A new KNET transaction's checkout page, then the pick: the browser is on KNET's page. */
  async function onKnetPage(): Promise<{ page: Page; id: string }> {
    const tx = await d.create({ pg_codes: ['knet'] });
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${t.url}/b/checkout/txn/${String(tx.session_id)}`);
    await page.locator('a.method').first().click();
    await page.waitForURL(`${sim.url}/kpg/paymentpage.htm?PaymentID=**`);
    assert.equal(await page.title(), 'KNET Payment Page');
    assert.equal(await page.locator('#amount').textContent(), 'KD 86.000');
    return { page, id: String(tx.session_id) };
  }

  async function fillCard(page: Page, expmm: string): Promise<void> {
    await page.getByLabel('Select Your Bank').selectOption('KNET1');
    await page.getByLabel('Card Number').fill('8888880000000001');
    await page.getByLabel('Expiration Month').selectOption(expmm);
    await page.getByLabel('Expiration Year').selectOption('2030');
    await page.getByLabel('PIN').fill('1234');
  }

  it('pays with the KNET test card and lands on the result page, paid', async () => {
    const { page, id } = await onKnetPage();
    await fillCard(page, '09');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(`${returnUrl()}?trackid=**`);
    assert.ok(await page.locator('[data-testid="reference"]').isVisible());
    assert.equal(String((await d.get(id)).state), 'paid');
    assert.deepEqual(
      (await adminEvents(t, id)).map((e) => e.event),
      ['created', 'paid'],
    );
    await page.context().close();
  });

  it('a declined card, then paid on a second try from the checkout page', async () => {
    const { page, id } = await onKnetPage();
    await fillCard(page, '05');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(`${returnUrl()}?trackid=**`);
    assert.equal(String((await d.get(id)).state), 'failed');
    await page.goto(`${t.url}/b/checkout/txn/${id}`);
    await page.locator('a.method').first().click();
    await page.waitForURL(`${sim.url}/kpg/paymentpage.htm?PaymentID=**`);
    await fillCard(page, '09');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(`${returnUrl()}?trackid=**`);
    assert.equal(String((await d.get(id)).state), 'paid');
    await page.context().close();
  });

  it('cancel on KNET’s page: back on the checkout page, which can still be paid', async () => {
    const { page, id } = await onKnetPage();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${t.url}/b/checkout/txn/${id}`);
    assert.ok(await page.locator('a.method').first().isVisible(), 'still payable');
    assert.equal(String((await d.get(id)).state), 'created');
    await page.context().close();
  });
});
