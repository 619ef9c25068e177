// test-legs: sqlite only — the OpenAPI document, its docs page and its client: the same on either database (docs/testing.md).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../setup/chromium';
import { startApp, TestApp } from '../setup/test-app';

/** Screenshots land in test/artifacts/ (git-ignored); this file runs as dist/test/openapi/*.js. */
const ARTIFACTS = resolve(__dirname, '..', '..', '..', 'test', 'artifacts');

describe('Swagger UI in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    t = await startApp();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders the operations of the API at /docs', async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/docs`);
    const create = page.getByText('Create a payment transaction', { exact: true });
    await create.waitFor({ timeout: 30_000 });
    assert.equal(await page.getByText('Retrieve a payment transaction (public)', { exact: true }).count(), 1);
    assert.equal(await page.locator('.opblock-tag', { hasText: 'Payment transactions' }).count(), 1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({
      path: resolve(ARTIFACTS, `docs-${process.env.TEST_DB ?? 'sqlite'}.png`),
      fullPage: true,
    });
    await page.close();
  });
});
