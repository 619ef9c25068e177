import { isLosslessNumber, parse } from 'lossless-json';
import { MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from './json-depth';

// The JSON parser of request bodies, alone in its module (no Express): json-parse.worker.ts loads it.

/** Top-level keys whose JSON numbers are read as their exact decimal text (contract §4 `amount`). */
const DECIMAL_KEYS = new Set(['amount', 'fee_fixed', 'fee_percent']);

/**
 * contract §17: the most values (object members and list items, at any depth) a JSON body may hold;
 * past it → 413. A create holds a few dozen, and even an `extra` at its 8 KB limit at most about
 * 4000 (`[0,0,…]`), but a megabyte of `{"k1":1,"k2":2,…}` holds 100 000: cheap to send, and every
 * step after the parser pays per value (class-transformer walks an object's keys in quadratic time:
 * one such object of 100 000 keys held the event loop for seconds). The form readers have the same
 * kind of bound (1000 parameters, 1000 multipart fields); `holdsMoreValuesThan` (json-depth.ts)
 * checks a value decoded elsewhere (a dict sent as a JSON string in a form).
 */
export const MAX_JSON_VALUES = 10_000;

export const TOO_MANY_VALUES_MESSAGE = `Request body is too large: a JSON body may hold at most ${MAX_JSON_VALUES} values.`;

/** What {@link parseJsonKeepingDecimals} throws for a body over {@link MAX_JSON_VALUES}. */
export class TooManyValues extends Error {
  constructor() {
    super(TOO_MANY_VALUES_MESSAGE);
  }
}

/**
 * Parses JSON keeping the digits of money: `12.50` arrives as the text "12.50", not 12.5. Only the
 * body's own money keys: an `amount` nested in `extra` is the merchant's data and stays a number.
 * A document nested deeper than {@link MAX_JSON_DEPTH} levels is refused (contract §17), and so is one
 * holding more than {@link MAX_JSON_VALUES} values ({@link TooManyValues}): the walk that converts the
 * values counts both, so the checks cost no second pass.
 */
export function parseJsonKeepingDecimals(text: string): unknown {
  const value = parseNotTooDeep(text);
  // A lone surrogate comes from a `\uD800`-style escape, or as a raw code unit from a body in
  // another charset (UTF-16 carries them; valid UTF-8 never decodes to one). With neither in the
  // text, no string needs the check (no walk per string: docs/performance.md).
  const walk: Walk = { check: MAY_HOLD_SURROGATE.test(text) ? checkedText : unchecked, values: 0 };
  if (!isPlainObject(value)) return plainValues(value, 1, walk);
  const entries = Object.entries(value);
  count(walk, entries.length);
  // fromEntries defines own properties: a `__proto__` key stays a plain (ignored) key.
  return Object.fromEntries(
    entries.map(([key, item]) => [
      walk.check(key),
      DECIMAL_KEYS.has(key) && isLosslessNumber(item) ? item.value : plainValues(item, 2, walk),
    ]),
  );
}

/** The state of one document's walk: how strings are checked, how many values were seen. */
interface Walk {
  check: (text: string) => string;
  values: number;
}

function count(walk: Walk, values: number): void {
  walk.values += values;
  if (walk.values > MAX_JSON_VALUES) throw new TooManyValues();
}

/** `\u` followed by a surrogate's code (D800–DFFF), in any case, or a surrogate code unit itself. */
const MAY_HOLD_SURROGATE = /\\u[dD][89a-fA-F]|[\uD800-\uDFFF]/;
const unchecked = (text: string): string => text;

/**
 * lossless-json's parser recurses once per level: a megabyte of `[` exhausts the stack there,
 * before our walk could count it. That is a document far too deep, not a fault.
 */
function parseNotTooDeep(text: string): unknown {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof RangeError)
      throw new Error(`the document is ${TOO_DEEP_MESSAGE}.`, { cause: error });
    throw error;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/**
 * Every LosslessNumber inside as a JS number, every string passed through `walk.check` (walked in
 * place), every member and item counted; `depth` is the level `value` sits at (the document is 1).
 */
function plainValues(value: unknown, depth: number, walk: Walk): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (typeof value === 'string') return walk.check(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_JSON_DEPTH) throw new Error(`the document is ${TOO_DEEP_MESSAGE}.`);
  if (Array.isArray(value)) {
    count(walk, value.length);
    for (let i = 0; i < value.length; i++) value[i] = plainValues(value[i], depth + 1, walk);
  } else {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    count(walk, keys.length);
    for (const key of keys) object[walk.check(key)] = plainValues(object[key], depth + 1, walk);
  }
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** An escaped lone surrogate (`"\ud800"`) is not text: MySQL would silently store U+FFFD instead. */
function checkedText(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new Error('Invalid \\u escape: a lone surrogate is not Unicode text');
  return text;
}
