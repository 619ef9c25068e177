// test-legs: sqlite only — pages in a browser: what the data layer does under them is tested on both legs (docs/testing.md).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AdminConfigService } from '../../src/admin-config/admin-config.service';
import { consoleStrings } from '../../src/admin-console/console-i18n';
import { GatewaySettings } from '../../src/gateways/gateway-settings';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { dataSourceOf, eventually, FAST_DELIVERY_ENV } from '../events/event-helpers';
import { insertDueTransactions } from '../factories/due-transactions';
import { TEST_CARDS, TransactionDriver } from '../factories/transaction-states';
import { adminAuth, Seeded, seedBasics } from '../setup/fixtures';
import { launchChromium } from '../setup/chromium';
import { ADMIN, startApp, TestApp } from '../setup/test-app';
import { HttpReceiver } from '../sinks/http-receiver';

/** `CONSOLE_SCREENSHOTS=docs/console`: where the pages' screenshots go (default: test artifacts). */
const SHOTS = join(process.cwd(), process.env.CONSOLE_SCREENSHOTS ?? join('test', 'artifacts', 'console'));

/** contract §19: the admin console in Debian's Chromium, against the real service. */
describe('admin console in a real browser', () => {
  let t: TestApp;
  let s: Seeded;
  let browser: Browser;
  let hook: HttpReceiver;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    hook = await HttpReceiver.start();
    [t, browser] = await Promise.all([
      startApp({ env: { ...FAST_DELIVERY_ENV, EXPIRY_SWEEP_SECONDS: '1' } }),
      launchChromium(),
    ]);
    s = await seedBasics(t);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await hook?.stop();
  });

  /** A fresh browser context; the test fails on any CSP violation, page error or missing resource. */
  async function open(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ baseURL: t.url });
    const page = await context.newPage();
    const problems: string[] = [];
    // Error statuses of pages are intended (401 wrong password, 403 non-admin); CSP violations and
    // script errors are not.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded')) {
        problems.push(m.text());
      }
    });
    page.on('response', (r) => {
      if (r.status() === 404) problems.push(`404 ${r.url()}`);
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { context, page, problems };
  }

  async function signIn(page: Page, username = ADMIN.username, password = ADMIN.password): Promise<void> {
    await page.goto('/admin/');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('refuses a wrong password and a non-admin, then signs an admin in and out', async () => {
    const { context, page, problems } = await open();
    await page.goto('/admin/');
    assert.equal(new URL(page.url()).pathname, '/admin/sign-in');
    await page.screenshot({ path: join(SHOTS, 'sign-in.png'), fullPage: true });
    await signIn(page, ADMIN.username, 'not-the-password');
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor();
    await signIn(page, 'merchant', 'merchant-pass-1');
    await page.getByRole('alert').filter({ hasText: 'This user is not an administrator.' }).waitFor();
    assert.ok(!(await context.cookies()).some((c) => c.name === 'checkout_admin'), 'no session for either');

    await signIn(page);
    await page.getByRole('heading', { name: 'Transactions' }).waitFor();
    const session = (await context.cookies()).find((c) => c.name === 'checkout_admin')!;
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.goto('/admin/config');
    assert.equal(new URL(page.url()).pathname, '/admin/sign-in', 'the session ended');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('toggles auto-expiry, and the expiry job honours it', async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'Configuration' }).click();
    const box = page.getByLabel('Expire transactions automatically');
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal((await t.app.get(AdminConfigService).get()).autoExpire, false);

    await insertDueTransactions(dataSourceOf(t), 2, { overrides: { customerEmail: 'due@example.com' } });
    await new Promise((r) => setTimeout(r, 2500)); // two sweep intervals: nothing may expire
    const still = await dataSourceOf(t).query<{ n: number }[]>(
      "SELECT COUNT(*) AS n FROM transactions WHERE customer_email = 'due@example.com' AND state = 'created'",
    );
    assert.equal(Number(still[0].n), 2, 'off: the job leaves them');

    await page.getByLabel('Expire transactions automatically').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'configuration.png'), fullPage: true });
    await eventually(
      async () => {
        const [row] = await dataSourceOf(t).query<{ n: number }[]>(
          "SELECT COUNT(*) AS n FROM transactions WHERE customer_email = 'due@example.com' AND state = 'expired'",
        );
        return Number(row.n) === 2 ? true : undefined;
      },
      5000,
      'both expired once auto-expiry is on again',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('shows field errors beside the field and writes nothing for an invalid URL', async () => {
    const { context, page } = await open();
    await signIn(page);
    await page.goto('/admin/config');
    await page.getByLabel('Merchant name').fill('Changed Shop');
    await page.getByLabel('Default redirect URL').fill('not a url');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was saved' }).waitFor();
    const field = page.getByLabel('Default redirect URL');
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#default_redirect_url-error').textContent(), 'Enter a valid URL.');
    const stored = await t.app.get(AdminConfigService).get();
    assert.notEqual(stored.merchantName, 'Changed Shop', 'a rejected form writes nothing');
    await page.screenshot({ path: join(SHOTS, 'configuration-errors.png'), fullPage: true });
    await context.close();
  });

  it('creates an API key shown once, which the API accepts, then revokes it, which the API honours', async () => {
    const { context, page } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('console key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-api-key').textContent())!.trim();
    assert.match(key, /^[A-Za-z0-9]{8}\.[A-Za-z0-9_-]+$/);
    await page.screenshot({ path: join(SHOTS, 'api-keys.png'), fullPage: true });
    const create = () =>
      t
        .http()
        .post('/b/checkout/v1/pymt-txn/')
        .set('Authorization', `Api-Key ${key}`)
        .send({
          type: 'e_commerce',
          amount: '5.000',
          currency_code: 'KWD',
          pg_codes: ['sandbox'],
        });
    await create().expect(201);
    await page.goto('/admin/api-keys');
    assert.equal(await page.locator('#new-api-key').count(), 0, 'the key is never shown again');
    await page.getByRole('button', { name: 'Revoke console key' }).click();
    await page.getByRole('status').filter({ hasText: 'The key is revoked.' }).waitFor();
    await create().expect(401);
    await context.close();
  });

  it('finds a paid transaction and redelivers its webhook to the receiver', async () => {
    const d = new TransactionDriver(t, s.apiKey);
    const tx = await d.create({ order_no: 'CONSOLE-PAID', webhook_url: hook.url });
    const sessionId = String(tx.session_id);
    await d.pay(sessionId, TEST_CARDS.success);
    await hook.waitFor(2, 5000); // created, paid
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByLabel('State').selectOption('paid');
    await page.getByLabel('Order number').fill('CONSOLE-PAID');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.screenshot({ path: join(SHOTS, 'transactions.png'), fullPage: true });
    await page.getByRole('row').filter({ hasText: 'CONSOLE-PAID' }).getByRole('link').click();
    await page.getByRole('heading', { name: 'Payment attempts' }).waitFor();
    assert.match(await page.locator('main').innerText(), /\*\*\*\* 1111/, 'the card, masked');
    assert.doesNotMatch(await page.content(), /4111111111111111/, 'never the card number');
    await page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: true });
    const before = hook.received.length;
    await page.getByRole('button', { name: /^Redeliver 2 paid$/ }).click();
    await page.getByRole('status').filter({ hasText: 'A new delivery of the webhook is queued.' }).waitFor();
    await hook.waitFor(before + 1, 5000);
    const again = hook.received[before].json;
    assert.equal(again.session_id, sessionId);
    assert.equal(again.state, 'paid');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('refuses a form without the CSRF token and writes nothing', async () => {
    const { context, page } = await open();
    await signIn(page);
    const cookie = (await context.cookies()).find((c) => c.name === 'checkout_admin')!;
    const res = await t
      .http()
      .post('/admin/config')
      .set('Cookie', `checkout_admin=${cookie.value}`)
      .type('form')
      .send({ merchant_name: 'Forged', auto_expire: 'true' });
    assert.equal(res.status, 403);
    assert.notEqual((await t.app.get(AdminConfigService).get()).merchantName, 'Forged');
    await context.close();
  });

  it('manages currencies: a bad code beside its field, an added one listed, then deleted', async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'Currencies' }).click();
    await page.getByLabel('Code').fill('E1R');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.locator('#code-error').waitFor();
    assert.equal(await page.getByLabel('Code').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Code').fill('eur');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('row').filter({ hasText: 'EUR' }).waitFor();
    assert.match(await page.getByRole('row').filter({ hasText: 'EUR' }).innerText(), /EUR\s+2/);
    await page.screenshot({ path: join(SHOTS, 'currencies.png'), fullPage: true });
    await page.getByRole('button', { name: 'Delete EUR' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted.' }).waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: 'EUR' }).count(), 0);
    // One a gateway uses is refused, with the API's reason.
    await page.getByRole('button', { name: 'Delete KWD' }).click();
    await page.getByRole('alert').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('manages users: field errors, an added user, deactivated in the console and refused by the API', async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('Username').fill('bad name!');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.locator('#username-error').waitFor();
    await page.locator('#password-error').waitFor();
    await page.getByLabel('Username').fill('backoffice');
    await page.getByLabel('Password').fill('backoffice-pass-1');
    await page.getByLabel('Gateway codes').fill('sandbox');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('link', { name: 'Edit backoffice' }).click();
    const basic = `Basic ${Buffer.from('backoffice:backoffice-pass-1').toString('base64')}`;
    const retrieveList = () =>
      t.http().post('/b/pbl/v2/payment-methods/').set('Authorization', basic).send({ currency_code: 'KWD' });
    assert.equal((await retrieveList()).status, 200, 'the new user authenticates');
    // "Leave empty to keep" is the password's hint, under it, not above the whole form.
    const password = page.getByLabel('Password');
    assert.equal(await password.getAttribute('aria-describedby'), 'password-hint');
    assert.equal(
      await page.locator('#password-hint').textContent(),
      'Leave empty to keep the current password.',
    );
    assert.equal(
      await page
        .locator('.field', { has: page.locator('#password') })
        .locator('#password-hint')
        .count(),
      1,
    );
    assert.equal(await page.locator('form.card > p.hint').count(), 0, 'no hint above Username');
    await page.screenshot({ path: join(SHOTS, 'user.png'), fullPage: true });
    await page.getByLabel('Active').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row').filter({ hasText: 'backoffice' }).waitFor();
    assert.match(
      await page.getByRole('row').filter({ hasText: 'backoffice' }).innerText(),
      /sandbox\s+no\s+no/,
    );
    assert.equal((await retrieveList()).status, 401, 'deactivated: refused');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('manages gateways: an unknown currency beside its field, an added gateway, edited', async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'Gateways' }).click();
    await page.getByLabel('Code').fill('console-gw');
    await page.getByLabel('Name', { exact: true }).fill('Console gateway');
    await page.getByLabel('Gateway driver (pg)').selectOption('sandbox');
    await page.getByLabel('Currencies').fill('KWD, XXX');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.locator('#currencies-error').waitFor();
    await page.getByLabel('Currencies').fill('KWD, USD');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('link', { name: 'Edit console-gw' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Console gateway 2');
    await page.getByLabel('Fixed fee').fill('0.250');
    await page.getByLabel('Icon URL').fill('https://cdn.example.com/console.svg');
    await page.screenshot({ path: join(SHOTS, 'gateway.png'), fullPage: true });
    await page.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row').filter({ hasText: 'console-gw' });
    await row.waitFor();
    assert.match(await row.innerText(), /Console gateway 2/);
    const res = await t
      .http()
      .get('/b/checkout/v1/admin/gateways/console-gw/')
      .set('Authorization', adminAuth());
    assert.equal(res.body.fee_fixed, '0.25');
    assert.deepEqual(res.body.currencies, ['KWD', 'USD']);
    assert.equal(res.body.icon, 'https://cdn.example.com/console.svg');
    // An emptied icon is the API's "" (the pg's default icon), not "unchanged".
    await page.getByRole('link', { name: 'Edit console-gw' }).click();
    await page.getByLabel('Icon URL').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await row.waitFor();
    const cleared = await t
      .http()
      .get('/b/checkout/v1/admin/gateways/console-gw/')
      .set('Authorization', adminAuth());
    assert.equal(cleared.body.icon, '');
    await page.screenshot({ path: join(SHOTS, 'gateways.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });

  it("picks the gateway's driver and shows its settings; secrets are password inputs, kept when left empty", async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.goto('/admin/gateways');
    const mpgs = page.locator('fieldset[data-driver="mpgs"]');
    const stripe = page.locator('fieldset[data-driver="stripe"]');
    await page.getByLabel('Gateway driver (pg)').selectOption('stripe');
    assert.equal(await stripe.isVisible(), true);
    assert.equal(await mpgs.isVisible(), false, "only the picked driver's settings show");
    await page.getByLabel('Gateway driver (pg)').selectOption('mpgs');
    assert.equal(await mpgs.isVisible(), true);
    assert.equal(await stripe.isVisible(), false);
    assert.equal(await page.locator('#setting-mpgs-api_password').getAttribute('type'), 'password');
    await page.getByLabel('Code').fill('console-mpgs');
    await page.getByLabel('Name', { exact: true }).fill('Bank MPGS');
    await page.getByLabel('Type').selectOption('production');
    await page.getByLabel('Currencies').fill('KWD');
    await page.locator('#setting-mpgs-merchant_id').fill('TEST0042');
    await page.locator('#setting-mpgs-api_base_url').fill('https://test-gateway.mastercard.com');
    await page.getByRole('button', { name: 'Add' }).click();
    // A required secret missing: refused beside its field; the plain settings stay as typed.
    await page.locator('#setting-mpgs-api_password-error').waitFor();
    assert.equal(await page.locator('#setting-mpgs-merchant_id').inputValue(), 'TEST0042');
    await page.locator('#setting-mpgs-api_password').fill('console-secret-pw-1');
    await page.screenshot({ path: join(SHOTS, 'gateway-settings.png'), fullPage: true });
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('link', { name: 'Edit console-mpgs' }).click();
    assert.equal(
      await page.locator('#setting-mpgs-api_password').inputValue(),
      '',
      'a secret is never shown',
    );
    assert.equal(await page.locator('#setting-mpgs-merchant_id').inputValue(), 'TEST0042');
    assert.ok(!(await page.content()).includes('console-secret-pw-1'));
    await page.locator('#setting-mpgs-merchant_name').fill('Console shop');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row').filter({ hasText: 'console-mpgs' }).waitFor();
    const res = await t
      .http()
      .get('/b/checkout/v1/admin/gateways/console-mpgs/')
      .set('Authorization', adminAuth());
    assert.deepEqual(res.body.settings, {
      merchant_id: 'TEST0042',
      api_base_url: 'https://test-gateway.mastercard.com',
      merchant_name: 'Console shop',
    });
    assert.deepEqual(res.body.secrets_set, ['api_password'], 'the empty secret field kept the secret');
    const gateway = await t.app.get(GatewaysService).get('console-mpgs');
    assert.equal(t.app.get(GatewaySettings).of(gateway).api_password, 'console-secret-pw-1');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('speaks Arabic right-to-left, and remembers the choice', async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'العربية' }).click();
    assert.equal(await page.locator('html').getAttribute('dir'), 'rtl');
    await page.getByRole('heading', { name: 'المعاملات' }).waitFor();
    await page.goto('/admin/config');
    assert.equal(await page.locator('html').getAttribute('lang'), 'ar');
    await page.screenshot({ path: join(SHOTS, 'configuration-ar.png'), fullPage: true });

    // Field and state names in Arabic; dates read in order, left to right.
    const ar = consoleStrings('ar');
    const d = new TransactionDriver(t, s.apiKey);
    const tx = await d.create({ order_no: 'CONSOLE-AR', webhook_url: hook.url });
    await d.pay(String(tx.session_id), TEST_CARDS.success);
    await page.goto('/admin/transactions');
    assert.equal(await page.locator('#state option[value="paid"]').textContent(), ar.states.paid);
    await page.goto(`/admin/transactions/${String(tx.session_id)}`);
    const names = await page.locator('dl.fields dt').allInnerTexts();
    assert.ok(
      names.includes(ar.transactionFields.session_id) && names.includes(ar.transactionFields.created_at),
    );
    assert.ok(!names.some((name) => /^[a-z_]+$/.test(name)), `no API field name left: ${names.join(', ')}`);
    const stateField = page.locator('dl.fields div', { hasText: ar.transactionFields.state }).first();
    assert.equal(await stateField.locator('dd').innerText(), ar.states.paid);
    const attempt = page.locator('section[aria-labelledby="attempts"] tbody tr').first();
    assert.match(await attempt.innerText(), new RegExp(ar.attemptResults.success));
    const when = attempt.locator('td').first().locator('time');
    assert.match(String(await when.getAttribute('datetime')), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(await when.getAttribute('dir'), 'ltr');
    assert.match(await when.innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // Rendered in reading order: on the screen the year is left of "UTC" (not "UTC 01:33:04 2026-11-26").
    const [yearX, utcX] = await page.evaluate<[number, number]>(`(() => {
      const text = document.querySelector('section[aria-labelledby="attempts"] tbody time').firstChild;
      const left = (from, to) => {
        const range = document.createRange();
        range.setStart(text, from);
        range.setEnd(text, to);
        return range.getBoundingClientRect().left;
      };
      return [left(0, 4), left(text.length - 3, text.length)];
    })()`);
    assert.ok(yearX < utcX, `the year (x=${yearX}) before UTC (x=${utcX})`);
    const statuses = await page.locator('article.event tbody td:nth-child(3)').allInnerTexts();
    assert.ok(statuses.length > 0);
    for (const status of statuses)
      assert.ok(Object.values(ar.deliveryStatuses).includes(status.trim()), status);
    await page.screenshot({ path: join(SHOTS, 'transaction-ar.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
});
