import Decimal from 'decimal.js';

/**
 * Stripe's amount rules, from https://docs.stripe.com/currencies ("Minor units in API amounts",
 * "Zero-decimal currencies", "Three-decimal currencies", "Special cases") and
 * https://support.stripe.com/questions/deprecation-of-fractional-isk-charges-and-refunds.
 *
 * - Amounts are integers in the currency's minor unit: 10.00 USD → 1000.
 * - Zero-decimal currencies take the amount as it is: 500 JPY → 500.
 * - Three-decimal currencies (BHD, JOD, KWD, OMR, TND) take thousandths, and the last digit must be 0
 *   ("round amounts to the nearest ten"): 5.120 KWD → 5120; 5.124 KWD cannot be charged.
 * - ISK stays two-decimal in the API but is charged in whole krónur only, so the amount in minor
 *   units must be divisible by 100 (Stripe answers `invalid_charge_amount_no_decimal_compatible`).
 * - Every other currency has two decimals (HUF and TWD included: their divisible-by-100 rule is for
 *   payouts, not charges).
 */

/** https://docs.stripe.com/currencies#zero-decimal */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(
  'BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF'.split(' '),
);

/** https://docs.stripe.com/currencies#three-decimal */
export const THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** Currencies whose charged amounts must be whole units although the API counts hundredths. */
const WHOLE_UNITS_ONLY: ReadonlySet<string> = new Set(['ISK']);

/** How many decimal places Stripe's minor unit of `currency` (ISO 4217, any case) stands for. */
export function stripeExponent(currency: string): 0 | 2 | 3 {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL_CURRENCIES.has(code)) return 0;
  if (THREE_DECIMAL_CURRENCIES.has(code)) return 3;
  return 2;
}

/**
 * Why Stripe cannot charge `amount` (a decimal string in major units) in `currency`, as a sentence
 * meant for a 400 under `amount`; null when it can.
 */
export function stripeAmountProblem(amount: string, currency: string): string | null {
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

/** Whether Stripe can charge `amount` in `currency` (see stripeAmountProblem). */
export function isStripeChargeable(amount: string, currency: string): boolean {
  return stripeAmountProblem(amount, currency) === null;
}

/** An amount Stripe cannot charge (the message states the rule). */
export class UnchargeableAmount extends Error {
  constructor(
    readonly amount: string,
    readonly currency: string,
    readonly rule: string,
  ) {
    super(rule);
    this.name = 'UnchargeableAmount';
  }
}

/**
 * `amount` (decimal string, major units) as Stripe's integer in minor units: ("10.5", "usd") → 1050,
 * ("500", "JPY") → 500, ("5.120", "KWD") → 5120. Throws UnchargeableAmount when Stripe cannot
 * charge it, and a RangeError past Number.MAX_SAFE_INTEGER.
 */
export function toStripeAmount(amount: string, currency: string): number {
  const problem = stripeAmountProblem(amount, currency);
  if (problem !== null) throw new UnchargeableAmount(amount, currency, problem);
  const minor = new Decimal(amount).times(new Decimal(10).pow(stripeExponent(currency)));
  if (minor.greaterThan(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${amount} is too large`);
  return minor.toNumber();
}

/**
 * Stripe's integer in minor units as a decimal string in major units with the currency's Stripe
 * exponent: (1050, "usd") → "10.50", (500, "jpy") → "500", (5120, "kwd") → "5.120".
 */
export function fromStripeAmount(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${minor} is not an integer amount`);
  const exponent = stripeExponent(currency);
  return new Decimal(minor).dividedBy(new Decimal(10).pow(exponent)).toFixed(exponent);
}
