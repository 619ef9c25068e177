import Decimal from 'decimal.js';

/** Decimal arithmetic for money: a private Decimal constructor so global settings never leak. */
export const Money = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -40,
  toExpPos: 40,
});
export type Money = Decimal;

/** The API's amount grammar (contract §4): up to 13 integer digits, any number of decimals. */
export const AMOUNT_PATTERN = /^\d{1,13}(\.\d+)?$/;
export const MAX_INTEGER_DIGITS = 13;

export type AmountProblem = 'invalid' | 'not_positive' | 'too_many_integer_digits';

/** Checks an amount's text against the grammar; returns the problem, or null when it is fine. */
export function amountProblem(text: string): AmountProblem | null {
  const trimmed = text.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(trimmed)) return 'invalid';
  const value = new Money(trimmed);
  if (value.lte(0)) return 'not_positive';
  if (trimmed !== text || !AMOUNT_PATTERN.test(text)) {
    const integerDigits = text
      .replace(/^[+-]/, '')
      .split('.')[0]
      .replace(/^0+(?=\d)/, '').length;
    return integerDigits > MAX_INTEGER_DIGITS ? 'too_many_integer_digits' : 'invalid';
  }
  return null;
}

/** Decimals that carry value: `"12.500"` → 1, `"12"` → 0 (trailing zeros do not count). */
export function significantDecimals(text: string): number {
  return Math.max(0, new Money(text).decimalPlaces());
}

/** Formats with exactly `digits` decimals, rounding half-up: `("12.5", 3)` → `"12.500"`. */
export function formatAmount(value: string | Money, digits: number): string {
  if (typeof value === 'string') {
    const plain = plainFixed(value, digits);
    if (plain !== null) return plain;
  }
  return new Money(value).toFixed(digits, Money.ROUND_HALF_UP);
}

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d*))?$/;

/**
 * {@link formatAmount} without the decimal library where no rounding is needed, as for what the
 * money columns hold (MySQL's DECIMAL(19,6) answers `86.000000`): a plain decimal text whose
 * decimals beyond `digits` are zeros only needs zeros padded or cut (the representation
 * and the event payload format a dozen amounts per request). Null for anything else.
 */
function plainFixed(value: string, digits: number): string | null {
  const match = PLAIN_DECIMAL.exec(value);
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > digits && !/^0*$/.test(fraction.slice(digits))) return null;
  const integer = match[1].replace(/^0+(?=\d)/, '');
  return digits === 0 ? integer : `${integer}.${fraction.slice(0, digits).padEnd(digits, '0')}`;
}

/** Gateway fee: `fixed + amount × percent / 100`, rounded half-up to the currency's digits. */
export function computeFee(amount: string, feeFixed: string, feePercent: string, digits: number): string {
  const plain = plainFee(amount, feeFixed, feePercent, digits);
  if (plain !== null) return plain;
  const fee = new Money(feeFixed).plus(new Money(amount).times(feePercent).dividedBy(100));
  return formatAmount(fee, digits);
}

/** A plain decimal text as an integer and its scale: `"1.25"` → 125n at scale 2. */
interface Scaled {
  units: bigint;
  scale: number;
}

function scaledOf(text: string): Scaled | null {
  const match = PLAIN_DECIMAL.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? '';
  return { units: BigInt(match[1] + fraction), scale: fraction.length };
}

/**
 * {@link computeFee} in exact integer arithmetic when all three are plain non-negative decimals (what
 * the columns hold): `fixed + amount × percent / 100` at a common scale, then half-up to `digits`.
 * The same result as the decimal library (every representation computes a fee). Null for
 * anything else.
 */
function plainFee(amount: string, feeFixed: string, feePercent: string, digits: number): string | null {
  const a = scaledOf(amount);
  const p = scaledOf(feePercent);
  const f = scaledOf(feeFixed);
  if (!a || !p || !f) return null;
  const productScale = a.scale + p.scale + 2; // ÷ 100
  const scale = Math.max(productScale, f.scale);
  const total =
    a.units * p.units * 10n ** BigInt(scale - productScale) + f.units * 10n ** BigInt(scale - f.scale);
  let rounded: bigint;
  if (scale > digits) {
    const divisor = 10n ** BigInt(scale - digits);
    rounded = (total + divisor / 2n) / divisor; // non-negative: half-up
  } else rounded = total * 10n ** BigInt(digits - scale);
  const text = rounded.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Canonical text of a decimal for storage: no exponent, no trailing zeros. */
export function canonicalDecimal(value: string | Money): string {
  return new Money(value).toFixed();
}
