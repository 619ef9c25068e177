// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { MpgsClient } from '../../../src/payments/providers/mpgs/mpgs-client';
import { MpgsApiError } from '../../../src/payments/providers/mpgs/mpgs-errors';
import { launchChromium } from '../../setup/chromium';
import { MpgsSimulator, newTransactionId } from './mpgs-simulator';

/** Checkout's own small script, served from the shop's origin: configure, then show the page. */
const START_SCRIPT = `(function () {
  var session = document.currentScript.getAttribute('data-session-id');
  Checkout.configure({ session: { id: session } });
  Checkout.showPaymentPage();
})();
`;

/**
 * A tiny stand-in for the page Checkout will serve (contract §20 "Paying through a provider"):
 * loads the provider's `checkout.min.js` and one same-origin script, under a CSP that allows
 * exactly those two. Also records the customer's return, the cancel, and notifications.
 */
async function startShop(simulatorUrl: string): Promise<{
  url: string;
  visits: URL[];
  notifications: { headers: IncomingHttpHeaders; body: string }[];
  server: Server;
}> {
  const visits: URL[] = [];
  const notifications: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop.invalid');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && url.pathname === '/notify') {
        notifications.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end();
        return;
      }
      if (url.pathname === '/start-checkout.js') {
        res.writeHead(200, { 'Content-Type': 'application/javascript; charset=utf-8' }).end(START_SCRIPT);
        return;
      }
      const pay = /^\/pay\/([^/]+)$/.exec(url.pathname);
      if (pay) {
        const session = decodeURIComponent(pay[1]).replace(/[^A-Za-z0-9]/g, '');
        res.writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': `default-src 'none'; script-src 'self' ${simulatorUrl}; base-uri 'none'; form-action 'none'`,
        });
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Payment</title>
<script src="${simulatorUrl}/static/checkout/checkout.min.js"></script>
<script src="/start-checkout.js" data-session-id="${session}"></script>
</head><body><p>Taking you to the payment page…</p></body></html>`);
        return;
      }
      visits.push(url);
      res
        .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Shop</title><h1>Back at the shop</h1>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, visits, notifications, server };
}

describe('MPGS Hosted Checkout round trip in a real browser (Debian chromium)', () => {
  let sim: MpgsSimulator;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let browser: Browser;
  let client: MpgsClient;

  before(async () => {
    sim = await new MpgsSimulator().start();
    [shop, browser] = await Promise.all([startShop(sim.url), launchChromium()]);
    client = new MpgsClient(sim.settings());
  });
  after(async () => {
    await browser?.close();
    await sim?.stop();
    shop?.server.close();
  });

  /** A fresh page that records console errors, failed responses and page errors. */
  async function newPage(): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico'))
        problems.push(`${m.text()} (${m.location().url})`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { page, problems, close: () => context.close() };
  }

  /** Creates a session and opens the shop's page for it, which goes on to the hosted page. */
  async function openHostedPage(page: Page, operation: 'PURCHASE' | 'AUTHORIZE' = 'PURCHASE') {
    const orderId = `ref-${newTransactionId().slice(0, 12)}`;
    const session = await client.initiateCheckout({
      orderId,
      amount: '7.25',
      currency: 'KWD',
      digits: 3,
      description: 'Two coffees',
      operation,
      returnUrl: `${shop.url}/return`,
      cancelUrl: `${shop.url}/cancel`,
      notificationUrl: `${shop.url}/notify`,
    });
    await page.goto(`${shop.url}/pay/${session.sessionId}`);
    await page.waitForURL(`${sim.url}/checkout/pay/**`);
    return { orderId, session };
  }

  async function fillCard(page: Page, number: string, expiry: string): Promise<void> {
    await page.getByLabel('Card number').fill(number);
    await page.getByLabel('Expiry date (MM/YY)').fill(expiry);
    await page.getByLabel('Security code').fill('100');
    await page.getByLabel('Cardholder name').fill('Test Customer');
  }

  it('pays: checkout.min.js takes the browser to the hosted page; Pay returns with the matching resultIndicator', async () => {
    const { page, problems, close } = await newPage();
    try {
      const loads = sim.scriptLoads;
      const { orderId, session } = await openHostedPage(page);
      assert.equal(sim.scriptLoads, loads + 1);
      assert.equal(await page.locator('#amount').textContent(), '7.250 KWD');
      await fillCard(page, '5123 4500 0000 0008', '01/39');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(`${shop.url}/return?**`);
      const back = new URL(page.url());
      assert.equal(
        MpgsClient.resultIndicatorMatches(back.searchParams.get('resultIndicator'), session.successIndicator),
        true,
      );
      assert.equal(back.searchParams.get('sessionVersion'), session.sessionVersion);
      const order = await client.retrieveOrder(orderId);
      assert.equal(order.status, 'CAPTURED');
      assert.equal(order.totalCapturedAmount, '7.25');
      await sim.notifier.settled();
      const notification = shop.notifications.find((n) => n.body.includes(`"id":"${orderId}"`));
      assert.ok(notification);
      assert.equal(client.verifyNotification(notification.headers), true);
      assert.deepEqual(problems, []);
      // The session is spent: its page no longer takes a card.
      const again = await page.goto(`${sim.url}/checkout/pay/${session.sessionId}`);
      assert.equal(again?.status(), 410);
    } finally {
      await close();
    }
  });

  it('declines (expiry 05/39): the payer stays on the hosted page, told so, and pays with another try', async () => {
    const { page, problems, close } = await newPage();
    try {
      const { orderId, session } = await openHostedPage(page, 'AUTHORIZE');
      await fillCard(page, '5123450000000008', '05/39');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.getByRole('alert').waitFor();
      assert.match((await page.getByRole('alert').textContent()) ?? '', /declined\. Try again/);
      assert.equal(new URL(page.url()).origin, sim.url, 'still on the hosted page');
      const order = await client.retrieveOrder(orderId);
      assert.equal(order.status, 'FAILED');
      assert.equal(order.transaction?.[0].response?.gatewayCode, 'DECLINED');
      await fillCard(page, '5123450000000008', '01/39');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(`${shop.url}/return?**`);
      const back = new URL(page.url());
      assert.equal(
        MpgsClient.resultIndicatorMatches(back.searchParams.get('resultIndicator'), session.successIndicator),
        true,
      );
      assert.equal((await client.retrieveOrder(orderId)).status, 'AUTHORIZED');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('cancel on the hosted page goes to interaction.cancelUrl and pays nothing', async () => {
    const { page, problems, close } = await newPage();
    try {
      const { orderId } = await openHostedPage(page);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL(`${shop.url}/cancel`);
      const error = await client.retrieveOrder(orderId).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error instanceof MpgsApiError);
      assert.equal(error.status, 404);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('checkout.min.js refuses a malformed session id and stays on the page', async () => {
    const { page, problems, close } = await newPage();
    try {
      await page.goto(`${shop.url}/pay/not-a-session`);
      await page.waitForLoadState('load');
      assert.equal(new URL(page.url()).origin, shop.url);
      assert.ok(problems.some((p) => p.includes('session.id must be a session id of 31 to 35 characters')));
    } finally {
      await close();
    }
  });

  it('an invalid card number is refused on the hosted page, which stays for another try', async () => {
    const { page, close } = await newPage();
    try {
      const { orderId } = await openHostedPage(page);
      await fillCard(page, '5123450000000009', '01/39');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.getByRole('alert').waitFor();
      assert.equal(await page.getByRole('alert').textContent(), 'Card number is invalid.');
      assert.equal(sim.order(orderId), undefined);
    } finally {
      await close();
    }
  });
});
