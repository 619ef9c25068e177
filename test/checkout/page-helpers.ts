import assert from 'node:assert/strict';
import type { TestApp } from '../setup/test-app';

/** Opens the payment page like a browser: returns its cookie, the form's CSRF token and the page. */
export async function openPaymentPage(
  t: TestApp,
  paymentUrl: string,
): Promise<{ cookie: string; token: string; path: string; html: string }> {
  const path = new URL(paymentUrl).pathname + new URL(paymentUrl).search;
  const res = await t.http().get(path).expect(200);
  const cookie = String(res.headers['set-cookie']?.[0] ?? '').split(';')[0];
  const token = /name="csrf_token" value="([0-9a-f]{64})"/.exec(res.text)?.[1] ?? '';
  assert.ok(cookie && token, 'the page sets a CSRF cookie and puts the token in the form');
  return { cookie, token, path, html: res.text };
}

/** The values of the payment page's saved-card choices (contract §15), in page order. */
export function savedCardChoices(html: string): string[] {
  return [...html.matchAll(/name="saved_card"\s+value="([^"]+)"/g)].map((match) => match[1]);
}

/** The payment form's card fields for a card number, the rest valid (contract §15). */
export function cardForm(card: string): Record<string, string> {
  return { card, expiry: '12/39', cvc: '123', name_on_card: 'Test Customer' };
}
