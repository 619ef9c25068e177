// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { KnetClient } from '../../../src/payments/providers/knet/knet-client';
import { launchChromium } from '../../setup/chromium';
import { KnetTestMerchant } from './knet-merchant';
import { KnetSimulator } from './knet-simulator';

/**
 * The customer's round trip in a real browser (Debian's chromium): merchant → KNET's hosted page
 * (simulated) → result posted to the responseURL → `REDIRECT=` → the merchant's receipt.
 */
describe('KNET hosted page in a real browser', () => {
  let sim: KnetSimulator;
  let merchant: KnetTestMerchant;
  let browser: Browser;

  before(async () => {
    sim = await KnetSimulator.start();
    const client = new KnetClient(
      {
        tranportalId: sim.terminal.tranportalId,
        tranportalPassword: sim.terminal.password,
        resourceKey: sim.terminal.resourceKey,
        paymentUrl: sim.paymentUrl,
        inquiryUrl: sim.inquiryUrl,
      },
      { logger: { log: () => undefined, warn: () => undefined } },
    );
    [merchant, browser] = await Promise.all([KnetTestMerchant.start(() => client), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await merchant?.close();
    await sim?.close();
  });

  /** Opens the merchant's pay link for a new track of `amount` and waits for KNET's page. */
  async function openKnetPage(
    amount: string,
  ): Promise<{ page: Page; trackId: string; close: () => Promise<void> }> {
    const trackId = randomBytes(10).toString('hex').toUpperCase().slice(0, 19); // KNET's transid limit
    merchant.expected.set(trackId, { trackId, amount });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${merchant.url}/pay/?track=${trackId}`);
    assert.equal(await page.title(), 'KNET Payment Page');
    assert.ok(page.url().startsWith(`${sim.url}/kpg/paymentpage.htm?PaymentID=`));
    return { page, trackId, close: () => context.close() };
  }

  async function fillCard(page: Page, card: { expmm: string; pin: string }): Promise<void> {
    await page.getByLabel('Select Your Bank').selectOption('KNET1');
    await page.getByLabel('Card Number').fill('8888880000000001');
    await page.getByLabel('Expiration Month').selectOption(card.expmm);
    await page.getByLabel('Expiration Year').selectOption('2030');
    await page.getByLabel('PIN').fill(card.pin);
  }

  it('pays with the KNET test card and lands on the receipt with the verified result', async () => {
    const { page, trackId, close } = await openKnetPage('12.5');
    try {
      assert.equal(await page.locator('#amount').textContent(), 'KD 12.500');
      await fillCard(page, { expmm: '09', pin: '1234' });
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.waitForURL(`${merchant.url}/receipt/?track=${trackId}`);
      assert.equal(await page.locator('#outcome').textContent(), 'captured CAPTURED');
      assert.equal(sim.paymentByTrack(trackId)?.state, 'CAPTURED');
    } finally {
      await close();
    }
  });

  it('asks again for a missing PIN, then declines another expiry date', async () => {
    const { page, trackId, close } = await openKnetPage('3');
    try {
      await fillCard(page, { expmm: '05', pin: '' });
      await page.getByRole('button', { name: 'Submit' }).click();
      assert.match((await page.getByRole('alert').textContent()) ?? '', /pin/i);
      await fillCard(page, { expmm: '05', pin: '4321' });
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.waitForURL(`${merchant.url}/receipt/?track=${trackId}`);
      assert.equal(await page.locator('#outcome').textContent(), 'declined NOT CAPTURED');
    } finally {
      await close();
    }
  });

  it('returns a customer who cancels on the page with a CANCELED result', async () => {
    const { page, trackId, close } = await openKnetPage('3');
    try {
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL(`${merchant.url}/receipt/?track=${trackId}`);
      assert.equal(await page.locator('#outcome').textContent(), 'canceled CANCELED');
    } finally {
      await close();
    }
  });

  it("shows KNET's error and reverses the payment when the merchant does not answer REDIRECT=", async () => {
    const { page, trackId, close } = await openKnetPage('3');
    merchant.replyMode = 'html';
    try {
      await fillCard(page, { expmm: '09', pin: '1234' });
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.getByRole('alert').waitFor();
      assert.match((await page.getByRole('alert').textContent()) ?? '', /IPAY0100249/);
      assert.equal(sim.paymentByTrack(trackId)?.state, 'REVERSED');
    } finally {
      merchant.replyMode = 'ok';
      await close();
    }
  });
});
