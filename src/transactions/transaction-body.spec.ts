import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldErrors } from '../common/errors/domain-errors';
import { MAX_JSON_VALUES } from '../common/http/json-parse';
import { decodeFormFields } from './transaction-body';

/** The field errors decodeFormFields throws for `raw`, or null when it decodes it. */
function errorsOf(raw: Record<string, unknown>): unknown {
  try {
    decodeFormFields(raw);
    return null;
  } catch (error) {
    assert.ok(error instanceof FieldErrors, String(error));
    return error.errors;
  }
}

/** A JSON list of `count` numbers: `count` values. */
const listOf = (count: number): string => JSON.stringify(Array.from({ length: count }, (_, i) => i));

describe('decodeFormFields (contract §1: lists and dicts sent as JSON strings in a form)', () => {
  it('decodes a dict and a list sent as JSON strings, and a repeated key as a list', () => {
    assert.deepEqual(
      decodeFormFields({
        extra: '{"a": [1, 2]}',
        pg_codes: '["a", "b"]',
        email_recipients: ['x@y.z', 'w@y.z'],
      }),
      { extra: { a: [1, 2] }, pg_codes: ['a', 'b'], email_recipients: ['x@y.z', 'w@y.z'] },
    );
  });

  it(`holds a JSON string to the body's ${MAX_JSON_VALUES} values (contract §17): the field errs, nothing else`, () => {
    assert.deepEqual(decodeFormFields({ extra: `{"list": ${listOf(MAX_JSON_VALUES - 1)}}` }).extra, {
      list: Array.from({ length: MAX_JSON_VALUES - 1 }, (_, i) => i),
    });
    assert.deepEqual(errorsOf({ extra: `{"list": ${listOf(MAX_JSON_VALUES)}}`, amount: '1.000' }), {
      extra: [`Value holds more than ${MAX_JSON_VALUES} values.`],
    });
    assert.deepEqual(errorsOf({ pg_codes: listOf(MAX_JSON_VALUES + 1) }), {
      pg_codes: [`Value holds more than ${MAX_JSON_VALUES} values.`],
    });
    assert.equal(errorsOf({ pg_codes: listOf(MAX_JSON_VALUES) }), null);
  });

  it('refuses invalid JSON and too deep a dict under their own fields', () => {
    assert.deepEqual(
      errorsOf({ extra: '{not json', billing_address: `${'{"a":'.repeat(32)}1${'}'.repeat(32)}` }),
      {
        extra: ['Value must be valid JSON.'],
        billing_address: ['Value is nested deeper than 32 levels (the body counts as one).'],
      },
    );
  });
});
