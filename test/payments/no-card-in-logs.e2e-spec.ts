import { cardForm } from '../checkout/page-helpers';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_CARDS, TransactionDriver, testPayPath } from '../factories/transaction-states';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { CapturedLogs } from '../setup/captured-logs';

const DIGITS = Object.values(TEST_CARDS).map((c) => c.replace(/ /g, ''));

/**
 * contract §14: card data is never logged. The app logs at `trace` here and pino's synchronous writes
 * to stdout/stderr are captured (pino writes through fs.writeSync, not process.stdout).
 */
describe('card numbers never reach the logs', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  const logCapture = new CapturedLogs();
  const captured = logCapture.lines;

  before(async () => {
    logCapture.start();
    t = await startApp({ env: { LOG_LEVEL: 'trace' } });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
  });
  after(async () => {
    await t.close();
    logCapture.stop();
  });

  it('logs requests, but not the card of any attempt (helper, page, malformed input)', async () => {
    const helperTx = String((await d.create()).session_id);
    await t
      .http()
      .post(testPayPath(helperTx))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.error })
      .expect(200);
    await t
      .http()
      .post(testPayPath(helperTx))
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.declined })
      .expect(200);
    await t
      .http()
      .post(testPayPath(helperTx))
      .set('Authorization', s.apiKey)
      .set('Content-Type', 'application/json')
      .send(`{"card": "${DIGITS[0]}"`)
      .expect(400);
    await t
      .http()
      .post(`${testPayPath(helperTx)}?card=${DIGITS[0]}`)
      .set('Authorization', s.apiKey)
      .send({ card: TEST_CARDS.success })
      .expect(200);

    const pageTx = await d.create();
    const method = (pageTx.payment_methods as { redirect_url: string }[])[0];
    const path = new URL(method.redirect_url).pathname + new URL(method.redirect_url).search;
    const page = await t.http().get(path).expect(200);
    const cookie = String(page.headers['set-cookie']?.[0] ?? '').split(';')[0];
    const token = /name="csrf_token" value="([0-9a-f]{64})"/.exec(page.text)?.[1] ?? '';
    await t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: token, ...cardForm(`${DIGITS[1]}x`) })
      .expect(400);
    await t
      .http()
      .post(path)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf_token: token, ...cardForm(TEST_CARDS.success) })
      .expect(200);

    const logs = captured.join('');
    assert.ok(captured.length >= 8, `request lines were logged (${captured.length})`);
    assert.ok(logs.includes(testPayPath(helperTx).replace(/\/$/, '')) || logs.includes(helperTx));
    for (const digits of DIGITS) {
      assert.ok(!logs.includes(digits), `no ${digits} in the logs`);
      assert.ok(!logs.includes(digits.replace(/(\d{4})(?=\d)/g, '$1 ')), `no spaced ${digits} in the logs`);
    }
  });
});
