import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amountProblem, computeFee, formatAmount, Money, significantDecimals } from './money';

describe('money', () => {
  it('formats with the currency digits', () => {
    assert.equal(formatAmount('12.5', 3), '12.500');
    assert.equal(formatAmount('7', 2), '7.00');
    assert.equal(formatAmount('1500', 0), '1500');
    assert.equal(formatAmount('9999999999999.999', 3), '9999999999999.999');
  });

  it('formats stored column text as the decimal library does, rounding where decimals carry value', () => {
    assert.equal(formatAmount('86.000000', 3), '86.000');
    assert.equal(formatAmount('007.100000', 2), '7.10');
    assert.equal(formatAmount('0.000000', 0), '0');
    assert.equal(formatAmount('1.005000', 2), '1.01', 'rounded half-up, not cut');
    assert.equal(formatAmount('2.5', 0), '3');
    const wholes = ['0', '7', '10', '0012', '9999999999999'];
    const fractions = ['', '.', '.0', '.5', '.05', '.000000', '.125000', '.999500', '.100', '.1234567'];
    for (const whole of wholes)
      for (const fraction of fractions)
        for (const digits of [0, 1, 2, 3]) {
          const value = `${whole}${fraction}`;
          const decimal = new Money(value).toFixed(digits, Money.ROUND_HALF_UP);
          assert.equal(formatAmount(value, digits), decimal, `${value} with ${digits} digits`);
        }
  });

  it('counts only decimals that carry value', () => {
    assert.equal(significantDecimals('12.500'), 1);
    assert.equal(significantDecimals('12.5001'), 4);
    assert.equal(significantDecimals('12'), 0);
    assert.equal(significantDecimals('12.000000'), 0);
  });

  it('rounds the fee half-up to the currency digits', () => {
    assert.equal(computeFee('10.005', '0', '50', 3), '5.003'); // 5.0025 → 5.003
    assert.equal(computeFee('100', '0.25', '2.5', 2), '2.75');
    assert.equal(computeFee('0.01', '0', '50', 2), '0.01'); // 0.005 → 0.01
    assert.equal(computeFee('1', '0.1', '20', 2), '0.30'); // 0.1 + 0.2, no float drift
  });

  it('computes the fee of stored column text as the decimal library does', () => {
    const amounts = [
      '0.000000',
      '1',
      '10.005000',
      '86.000000',
      '0.015',
      '1234567.891000',
      '9999999999999.999999',
    ];
    const fixeds = ['0', '0.000000', '0.250000', '0.1', '100.125000', '0.005'];
    const percents = ['0', '0.000000', '2.500000', '50', '1.75', '0.333333', '100.000000'];
    for (const amount of amounts)
      for (const fixed of fixeds)
        for (const percent of percents)
          for (const digits of [0, 1, 2, 3]) {
            const decimal = new Money(fixed)
              .plus(new Money(amount).times(percent).dividedBy(100))
              .toFixed(digits, Money.ROUND_HALF_UP);
            assert.equal(
              computeFee(amount, fixed, percent, digits),
              decimal,
              `${amount} ${fixed} ${percent} ${digits}`,
            );
          }
    // anything but plain non-negative decimals still goes through the decimal library
    assert.equal(computeFee('1e2', '0', '10', 2), '10.00');
    assert.equal(computeFee('100', '-1', '10', 2), '9.00');
  });

  it('accepts the amount grammar and names what is wrong', () => {
    assert.equal(amountProblem('1'), null);
    assert.equal(amountProblem('1234567890123.45'), null);
    assert.equal(amountProblem('12345678901234'), 'too_many_integer_digits');
    assert.equal(amountProblem('0'), 'not_positive');
    assert.equal(amountProblem('0.000'), 'not_positive');
    assert.equal(amountProblem('-5'), 'not_positive');
    assert.equal(amountProblem('abc'), 'invalid');
    assert.equal(amountProblem('1e5'), 'invalid');
    assert.equal(amountProblem('.5'), 'invalid');
    assert.equal(amountProblem('5.'), 'invalid');
    assert.equal(amountProblem(' 5'), 'invalid');
    assert.equal(amountProblem('+5'), 'invalid');
  });
});
