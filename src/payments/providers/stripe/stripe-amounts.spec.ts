import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fromStripeAmount,
  isStripeChargeable,
  stripeAmountProblem,
  stripeExponent,
  toStripeAmount,
  UnchargeableAmount,
} from './stripe-amounts';

/** Stripe's minor-unit rules (https://docs.stripe.com/currencies), as contract §20 requires them. */
describe('Stripe amounts', () => {
  it('knows each currency kind: two-decimal, zero-decimal, three-decimal, in any case', () => {
    assert.equal(stripeExponent('usd'), 2);
    assert.equal(stripeExponent('EUR'), 2);
    assert.equal(stripeExponent('JPY'), 0);
    assert.equal(stripeExponent('krw'), 0);
    assert.equal(stripeExponent('KWD'), 3);
    assert.equal(stripeExponent('bhd'), 3);
    assert.equal(stripeExponent('ISK'), 2, 'ISK stays two-decimal in the API');
    assert.equal(stripeExponent('HUF'), 2, 'HUF charges keep two decimals');
  });

  it('converts decimal strings to minor units exactly', () => {
    assert.equal(toStripeAmount('10', 'USD'), 1000);
    assert.equal(toStripeAmount('10.5', 'usd'), 1050);
    assert.equal(toStripeAmount('0.01', 'USD'), 1);
    assert.equal(toStripeAmount('19.99', 'EUR'), 1999);
    assert.equal(
      toStripeAmount('1.10', 'USD'),
      110,
      'no float error: 1.10 × 100 is 110, not 110.00000000000001',
    );
    assert.equal(toStripeAmount('500', 'JPY'), 500);
    assert.equal(toStripeAmount('500.00', 'JPY'), 500);
    assert.equal(toStripeAmount('5.120', 'KWD'), 5120);
    assert.equal(toStripeAmount('12.34', 'KWD'), 12340);
    assert.equal(toStripeAmount('5', 'ISK'), 500);
    assert.equal(toStripeAmount('90071992547409.91', 'USD'), 9007199254740991);
  });

  it('converts minor units back with the currency’s decimals', () => {
    assert.equal(fromStripeAmount(1050, 'usd'), '10.50');
    assert.equal(fromStripeAmount(500, 'jpy'), '500');
    assert.equal(fromStripeAmount(5120, 'kwd'), '5.120');
    assert.equal(fromStripeAmount(1, 'usd'), '0.01');
    assert.throws(() => fromStripeAmount(1.5, 'usd'), RangeError);
  });

  it('says a KWD amount whose last digit is not 0 is not chargeable, and why', () => {
    assert.equal(isStripeChargeable('5.124', 'KWD'), false);
    assert.match(stripeAmountProblem('5.124', 'KWD')!, /KWD.*last of the three decimals must be 0/);
    assert.equal(isStripeChargeable('5.120', 'KWD'), true);
    assert.equal(isStripeChargeable('5.12', 'KWD'), true);
    assert.equal(isStripeChargeable('0.005', 'BHD'), false);
    assert.throws(
      () => toStripeAmount('5.124', 'KWD'),
      (error: unknown) => error instanceof UnchargeableAmount && error.currency === 'KWD',
    );
  });

  it('refuses more decimals than the currency has, and fractions of a zero-decimal currency', () => {
    assert.match(stripeAmountProblem('1.005', 'USD')!, /at most 2 decimals/);
    assert.match(stripeAmountProblem('100.5', 'JPY')!, /whole units only/);
    assert.match(stripeAmountProblem('5.50', 'ISK')!, /ISK in whole units only/);
    assert.equal(isStripeChargeable('5.00', 'ISK'), true);
  });

  it('refuses what is not a positive decimal', () => {
    assert.notEqual(stripeAmountProblem('abc', 'USD'), null);
    assert.notEqual(stripeAmountProblem('-1', 'USD'), null);
    assert.notEqual(stripeAmountProblem('0.00', 'USD'), null);
    assert.notEqual(stripeAmountProblem('Infinity', 'USD'), null);
    assert.throws(() => toStripeAmount('90071992547409.92', 'USD'), RangeError);
  });
});
