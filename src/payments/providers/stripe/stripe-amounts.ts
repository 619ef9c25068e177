import Decimal from 'decimal.js';

/**
 * Stripe's amounts in its minor units. The rule of what Stripe can charge has one copy, in
 * stripe-amount-rule.ts (also the Stripe driver's catalogue `amountProblem` hook, which the
 * transactions and operations ask before anything is sent); it is re-exported here. The rules, from https://docs.stripe.com/currencies ("Minor units in API amounts",
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

export {
  stripeExponent,
  THREE_DECIMAL_CURRENCIES,
  ZERO_DECIMAL_CURRENCIES,
  stripeAmountRule as stripeAmountProblem,
} from './stripe-amount-rule';
import { stripeAmountRule as stripeAmountProblem, stripeExponent } from './stripe-amount-rule';

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
