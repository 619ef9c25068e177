// test-legs: sqlite only — pages in a browser: what the data layer does under them is tested on both legs (docs/testing.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { TransactionDriver } from '../factories/transaction-states';
import { StripeSimulator } from '../providers/stripe/stripe-simulator';
import { launchChromium } from '../setup/chromium';
import { gatewayInput, seedBasics, type Seeded } from '../setup/fixtures';
import { startApp, type TestApp } from '../setup/test-app';
import { stripeSettings } from './stripe-helpers';

const SAVING = 'stripe-cards';

/**
 * Saving a card through Stripe in a real browser (contract §15, §20): the checkout page → our page
 * with the save box (its CSP lets the form go on to Stripe's page) → Stripe's page → back; on the
 * customer's next transaction the saved card is offered and paid with, without leaving our page.
 */
describe('Stripe saved cards through the checkout page in a real browser', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let sim: StripeSimulator;
  let browser: Browser;

  before(async () => {
    sim = await StripeSimulator.start();
    t = await startApp({ overrides: [stripeSettings(() => sim)] });
    sim.webhookUrl = `${t.url}/b/checkout/v1/gateways/${SAVING}/notify/`;
    s = await seedBasics(t);
    await t.app.get(GatewaysService).create(
      gatewayInput({
        code: SAVING,
        name: 'Stripe',
        pg: 'stripe',
        type: 'sandbox',
        tokenizable: true,
        currencies: ['KWD', 'USD'],
      }),
    );
    d = new TransactionDriver(t, s.apiKey);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
    await t?.close();
  });

  it('ticks "save this card", pays on Stripe’s page, then pays the next transaction with the saved card', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const first = String((await d.create({ pg_codes: [SAVING], customer_id: 'cust-browser' })).session_id);
    await page.goto(`${t.url}/b/checkout/txn/${first}`);
    await page.locator('a.method').first().click();
    await page.waitForURL(`${t.url}/b/checkout/pay/${SAVING}/?**`);
    assert.equal(await page.locator('input[name="card"]').count(), 0, 'the card is typed on Stripe’s page');
    await page.locator('#save_card').check();
    await page.locator('button.primary').click();
    await page.waitForURL(`${sim.baseUrl}/c/pay/**`);
    await page.locator('#cardNumber').fill('4242424242424242');
    await page.locator('#cardExpiry').fill('10 / 33');
    await page.locator('#billingName').fill('Grace Hopper');
    await page.locator('#submit').click();
    await page.waitForURL(`${t.url}/b/checkout/v1/gateways/${SAVING}/return/**`);
    assert.equal(String((await d.get(first)).state), 'paid');

    const cards = await t
      .http()
      .post('/b/pbl/v2/card/')
      .set('Authorization', s.apiKey)
      .send({ customer_id: 'cust-browser', type: 'sandbox' })
      .expect(200);
    const listed = cards.body as Record<string, unknown>[];
    assert.equal(listed.length, 1);
    assert.deepEqual(
      [
        listed[0].brand,
        listed[0].number,
        listed[0].expiry_month,
        listed[0].expiry_year,
        listed[0].name_on_card,
      ],
      ['Visa', '**** 4242', '10', '2033', 'Grace Hopper'],
    );

    const second = String((await d.create({ pg_codes: [SAVING], customer_id: 'cust-browser' })).session_id);
    await page.goto(`${t.url}/b/checkout/txn/${second}`);
    await page.locator('a.method').first().click();
    await page.waitForURL(`${t.url}/b/checkout/pay/${SAVING}/?**`);
    await page.getByText('Visa **** 4242 · 10/2033').click();
    await page.locator('button.primary').click();
    await page.waitForSelector('[data-testid="reference"]');
    assert.ok(!page.url().startsWith(sim.baseUrl), 'paid without Stripe’s page');
    assert.equal(String((await d.get(second)).state), 'paid');
    await context.close();
  });
});
