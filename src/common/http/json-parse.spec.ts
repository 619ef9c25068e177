import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ServiceUnavailable } from '../errors/domain-errors';
import { holdsMoreValuesThan } from './json-depth';
import {
  MAX_JSON_VALUES,
  parseJsonKeepingDecimals,
  TOO_MANY_VALUES_MESSAGE,
  TooManyValues,
} from './json-parse';
import { JsonParseThread } from './json-parse-thread';

/** A document holding exactly `values` values: `{"a": [0, 0, …]}` (the key counts as one). */
const documentOf = (values: number): string => JSON.stringify({ a: new Array<number>(values - 1).fill(0) });

/** A megabyte-long string: 50–120 ms of parsing, long enough to stop a worker in the middle of. */
const SLOW = `"${'x'.repeat(1024 * 1024)}"`;

/** Which error it is, as the body reader tells them apart (json-body.ts): the values limit, or any other. */
const kind = (error: unknown): string => (error instanceof TooManyValues ? 'too many values' : 'refused');

/** What parsing `text` gives, in process: the value, or the error's kind and message. */
function inProcess(text: string): unknown {
  try {
    return { value: parseJsonKeepingDecimals(text) };
  } catch (error) {
    return { error: kind(error), message: (error as Error).message };
  }
}

/** The same, through a parse thread. */
async function onThread(thread: JsonParseThread, text: string): Promise<unknown> {
  try {
    return { value: await thread.parse(text) };
  } catch (error) {
    return { error: kind(error), message: (error as Error).message };
  }
}

/** Documents the parser reads or refuses in each of its ways. */
const SAMPLES: Record<string, string> = {
  'money as decimal text, other numbers as numbers':
    '{"amount": 12.500, "fee_fixed": 0.10, "n": 1.50, "extra": {"amount": 2.50}}',
  'a __proto__ key, kept as data':
    '{"__proto__": {"polluted": true}, "extra": {"__proto__": {"x": 1}, "constructor": 1}}',
  'lists and scalars': '[1, "two", null, true, {"a": [1.5e3]}]',
  'malformed JSON': '{"type": "e_commerce",}',
  'a duplicate key': '{"a": 1, "a": 2}',
  'a lone surrogate': '{"extra": {"note": "\\ud800"}}',
  'nested 33 levels deep': `${'['.repeat(33)}${']'.repeat(33)}`,
  'nested far too deep for the parser': '['.repeat(1_000_000),
  'over the values limit': documentOf(MAX_JSON_VALUES + 1),
};

describe('JSON values limit', () => {
  it(`reads a document of ${MAX_JSON_VALUES} values and refuses one more, counting keys and items at any depth`, () => {
    assert.equal(
      (parseJsonKeepingDecimals(documentOf(MAX_JSON_VALUES)) as { a: unknown[] }).a.length,
      MAX_JSON_VALUES - 1,
    );
    assert.throws(() => parseJsonKeepingDecimals(documentOf(MAX_JSON_VALUES + 1)), TooManyValues);
    const wide = JSON.stringify({
      extra: Object.fromEntries(Array.from({ length: MAX_JSON_VALUES }, (_, i) => [`k${i}`, i])),
    });
    assert.throws(() => parseJsonKeepingDecimals(wide), { message: TOO_MANY_VALUES_MESSAGE }); // + `extra`
    const nested = JSON.stringify([Array.from({ length: MAX_JSON_VALUES / 2 }, () => ({ a: 1 }))]);
    assert.throws(() => parseJsonKeepingDecimals(nested), TooManyValues); // 1 + 5000 objects + 5000 keys
  });
});

describe('holdsMoreValuesThan', () => {
  it('counts as the parser does, for values decoded elsewhere', () => {
    for (const values of [MAX_JSON_VALUES, MAX_JSON_VALUES + 1]) {
      const text = documentOf(values);
      const parserRefuses = (() => {
        try {
          parseJsonKeepingDecimals(text);
          return false;
        } catch (error) {
          return error instanceof TooManyValues;
        }
      })();
      assert.equal(holdsMoreValuesThan(JSON.parse(text), MAX_JSON_VALUES), parserRefuses, String(values));
    }
    const nested = { a: [{ b: 1, c: [1, 2] }], d: 'x' }; // a, d, the item, b, c, 1, 2
    assert.equal(holdsMoreValuesThan(nested, 7), false);
    assert.equal(holdsMoreValuesThan(nested, 6), true);
    assert.equal(holdsMoreValuesThan('text', 0), false);
  });
});

describe('JsonParseThread', () => {
  const thread = new JsonParseThread();
  after(() => thread.close());

  for (const [name, text] of Object.entries(SAMPLES)) {
    it(`gives what the parser gives in process: ${name}`, async () => {
      assert.deepEqual(await onThread(thread, text), inProcess(text));
    });
  }

  it('keeps a __proto__ key an own key of a plain object, never a prototype', async () => {
    const value = (await thread.parse(SAMPLES['a __proto__ key, kept as data'])) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), ['__proto__', 'extra']);
    assert.equal((value as { polluted?: unknown }).polluted, undefined);
  });

  it('parses many documents at once, each answer to its own', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => JSON.stringify({ amount: Number(`${i}.5`), i }));
    const values = await Promise.all(texts.map((text) => thread.parse(text)));
    assert.deepEqual(
      values,
      texts.map((_, i) => ({ amount: `${i}.5`, i })),
    );
  });

  it('fails the parses of a worker that died with 503, and starts another for the next', async () => {
    const own = new JsonParseThread();
    try {
      assert.deepEqual(await own.parse('{"a": 1}'), { a: 1 });
      const worker = (own as unknown as { worker: { terminate(): Promise<number> } }).worker;
      const lost = assert.rejects(own.parse(SLOW), ServiceUnavailable);
      await worker.terminate();
      await lost;
      assert.deepEqual(await own.parse('{"a": 2}'), { a: 2 });
    } finally {
      await own.close();
    }
  });

  it('fails the parses pending at close with 503', async () => {
    const own = new JsonParseThread();
    const refused = assert.rejects(own.parse(SLOW), ServiceUnavailable);
    await own.close();
    await refused;
  });
});
