import Decimal from 'decimal.js';

/**
 * Which amounts Stripe can charge and move (contract §20.1 "Stripe's amount rule is checked before
 * anything is sent"), for the driver catalogue's `amountProblem` hook: the transactions' create and
 * update and the operations' capture and refund ask it before anything is stored or sent.
 *
 * The one copy of the rule: the Stripe driver's amounts (stripe-amounts.ts) use it too. From
 * https://docs.stripe.com/currencies ("Minor units in API amounts", "Zero-decimal currencies",
 * "Three-decimal currencies", "Special cases") and
 * https://support.stripe.com/questions/deprecation-of-fractional-isk-charges-and-refunds:
 * - amounts are integers in the currency's minor unit (10.00 USD → 1000);
 * - zero-decimal currencies take the amount as it is (500 JPY → 500);
 * - three-decimal currencies (BHD, JOD, KWD, OMR, TND) take thousandths whose last digit is 0
 *   ("round amounts to the nearest ten"): 5.120 KWD can be charged, 5.125 KWD cannot;
 * - ISK is two-decimal in the API but charged in whole krónur only;
 * - every other currency has two decimals.
 */

/** https://docs.stripe.com/currencies#zero-decimal */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(
  'BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF'.split(' '),
);

/** https://docs.stripe.com/currencies#three-decimal */
export const THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** How many decimal places Stripe's minor unit of `currency` (ISO 4217, any case) stands for. */
export function stripeExponent(currency: string): 0 | 2 | 3 {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL_CURRENCIES.has(code)) return 0;
  if (THREE_DECIMAL_CURRENCIES.has(code)) return 3;
  return 2;
}

/** Charged in whole units although the API counts hundredths. */
const WHOLE_UNITS_ONLY: ReadonlySet<string> = new Set(['ISK']);

/**
 * Why Stripe cannot charge or move `amount` (decimal text, major units) in `currency`, as the
 * sentence of a 400 under `amount`; null when it can.
 */
export function stripeAmountRule(amount: string, currency: string): string | null {
  const code = currency.toUpperCase();
  let value: Decimal;
  try {
    value = new Decimal(amount);
  } catch {
    return `"${amount}" is not a decimal amount.`;
  }
  if (!value.isFinite() || value.isNegative() || value.isZero())
    return `"${amount}" is not a positive amount.`;
  const exponent = stripeExponent(code);
  const minor = value.times(new Decimal(10).pow(exponent));
  if (!minor.isInteger()) {
    return exponent === 0
      ? `Stripe charges ${code} in whole units only (no decimals).`
      : `Stripe charges ${code} with at most ${exponent} decimals.`;
  }
  if (exponent === 3 && !minor.mod(10).isZero()) {
    return `Stripe charges ${code} in multiples of 0.010: the last of the three decimals must be 0.`;
  }
  if (WHOLE_UNITS_ONLY.has(code) && !minor.mod(100).isZero()) {
    return `Stripe charges ${code} in whole units only (no decimals).`;
  }
  return null;
}
