import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMpgsAmount, parseMpgsAmount } from './mpgs-amount';

describe('MPGS amounts', () => {
  it('are decimal strings with exactly the currency digits', () => {
    assert.equal(formatMpgsAmount('12.5', 3), '12.500');
    assert.equal(formatMpgsAmount('7', 2), '7.00');
    assert.equal(formatMpgsAmount('1500', 0), '1500');
    assert.equal(formatMpgsAmount('9999999999999.999', 3), '9999999999999.999');
    assert.equal(formatMpgsAmount('0.1', 2), '0.10');
  });

  it('are never rounded: more decimals than the currency has is an error', () => {
    assert.throws(() => formatMpgsAmount('1.005', 2), /more than 2 decimals/);
    assert.throws(() => formatMpgsAmount('10.5', 0), /more than 0 decimals/);
    assert.equal(formatMpgsAmount('1.500', 1), '1.5');
  });

  it('refuses negative amounts and bad digits', () => {
    assert.throws(() => formatMpgsAmount('-1', 2), /positive/);
    assert.throws(() => formatMpgsAmount('1', -1), /digits/);
  });

  it('reads amounts of answers without floats', () => {
    assert.equal(parseMpgsAmount('0.30')?.toFixed(), '0.3');
    assert.equal(parseMpgsAmount('12345678901234.567')?.toFixed(3), '12345678901234.567');
    assert.equal(parseMpgsAmount(undefined), null);
  });
});
