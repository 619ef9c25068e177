import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LARGE_BODY_BYTES } from '../../src/common/http/body-gate';
import { MAX_JSON_VALUES, TOO_MANY_VALUES_MESSAGE } from '../../src/common/http/json-parse';
import { RequestBodies } from '../../src/common/http/request-bodies';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { TXN_PATH } from '../transactions/helpers';

/**
 * `text` (a JSON object, well formed or not) with an ignored key added at its end, so that it weighs
 * more than {@link LARGE_BODY_BYTES}: read through the large bodies' gate and parsed off the event loop.
 * At the end, so that a parse error keeps its position.
 */
function large(text: string): string {
  const padded = `${text.slice(0, text.lastIndexOf('}'))}, "padding": "${'x'.repeat(LARGE_BODY_BYTES)}"}`;
  assert.ok(Buffer.byteLength(padded) > LARGE_BODY_BYTES);
  return padded;
}

const base = JSON.stringify(transactionBody()).slice(1, -1);

/** Create bodies the JSON reader takes or refuses, each in its own way. */
const BODIES: Record<string, string> = {
  'money as decimal text, and extra keys named like Object.prototype members': `{${base.replace(
    '"86.000"',
    '86.500',
  )}, "extra": {"__proto__": {"polluted": true}, "constructor": 1, "amount": 2.50}}`,
  'malformed JSON': `{${base}, "extra": {"a": 1,}}`,
  'a duplicate key': `{${base}, "extra": {"a": 1, "a": 2}}`,
  'a lone surrogate': `{${base}, "extra": {"note": "\\udc00"}}`,
  'nested deeper than 32 levels': `{${base}, "extra": ${'{"a":'.repeat(32)}1${'}'.repeat(32)}}`,
};

/** contract §1, §17: large JSON bodies are parsed off the event loop, to the same answers. */
describe('large JSON bodies', () => {
  let t: TestApp;
  let s: Seeded;
  before(async () => {
    t = await startApp();
    s = await seedBasics(t);
  });
  after(() => t.close());

  const send = async (text: string) => {
    const res = await fetch(`${t.url}${TXN_PATH}`, {
      method: 'POST',
      headers: { Authorization: s.apiKey, 'Content-Type': 'application/json' },
      body: text,
    });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body };
  };
  /** What a client sees of a create's answer, without what differs from one create to the next. */
  const seen = ({ status, body }: { status: number; body: Record<string, unknown> }) =>
    status === 201 ? { status, amount: body.amount, extra: body.extra } : { status, body: body as unknown };

  for (const [name, text] of Object.entries(BODIES)) {
    it(`answers a large body as a small one: ${name}`, async () => {
      const thread = t.app.get(RequestBodies).parseThread;
      const before = thread.parsed;
      const small = seen(await send(text));
      assert.equal(thread.parsed, before, 'a small body is parsed on the event loop');
      assert.deepEqual(seen(await send(large(text))), small);
      assert.equal(thread.parsed, before + 1, 'a large one off it');
      if (small.status === 201) {
        assert.equal(small.amount, '86.500');
        assert.deepEqual(
          small.extra,
          JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "amount": 2.5}'),
        );
      } else {
        assert.equal(small.status, 400, JSON.stringify(small));
      }
    });
  }

  it(`reads a body of ${MAX_JSON_VALUES} values (keys and list items) and answers 413 to one more`, async () => {
    // type, amount, currency_code, pg_codes and its item, items: 6 values besides the list's.
    const body = (values: number) =>
      JSON.stringify({ ...transactionBody(), items: new Array(values - 6).fill(0) });
    assert.equal((await send(body(MAX_JSON_VALUES))).status, 201);
    assert.deepEqual(await send(body(MAX_JSON_VALUES + 1)), {
      status: 413,
      body: { detail: TOO_MANY_VALUES_MESSAGE },
    });
  });
});
