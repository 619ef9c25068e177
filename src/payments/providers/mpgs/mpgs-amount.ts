import { Money } from '../../../common/money/money';

/**
 * Amounts as MPGS takes them: a decimal string with the currency's number of digits (contract §20
 * "Provider calls"). MPGS documents `order.amount` and `transaction.amount` as decimals in the
 * currency's major unit, e.g. `"100.00"` for USD
 * (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/establishing-a-session/).
 *
 * `digits` comes from the currencies module (ISO 4217 minor units). An amount that has more
 * significant decimals than the currency allows is refused rather than rounded: money is never
 * changed on the way to the provider.
 */
export function formatMpgsAmount(amount: string | Money, digits: number): string {
  if (!Number.isInteger(digits) || digits < 0) throw new Error(`Invalid currency digits: ${digits}`);
  const value = new Money(amount);
  if (!value.isFinite() || value.isNegative()) throw new Error('An MPGS amount must be a positive decimal.');
  if (value.decimalPlaces() > digits) {
    throw new Error(`The amount ${value.toFixed()} has more than ${digits} decimals.`);
  }
  return value.toFixed(digits);
}

/** Reads an amount from an MPGS answer (kept as decimal text by the JSON parser) as Money. */
export function parseMpgsAmount(value: unknown): Money | null {
  if (typeof value === 'string' || typeof value === 'number') return new Money(value);
  return null;
}
