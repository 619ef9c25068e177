import express, { NextFunction, Request, Response } from 'express';
import { isLosslessNumber, parse } from 'lossless-json';
import { MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from './json-depth';

/** Top-level keys whose JSON numbers are read as their exact decimal text (contract §4 `amount`). */
const DECIMAL_KEYS = new Set(['amount', 'fee_fixed', 'fee_percent']);

/**
 * Parses JSON keeping the digits of money: `12.50` arrives as the text "12.50", not 12.5. Only the
 * body's own money keys: an `amount` nested in `extra` is the merchant's data and stays a number.
 * A document nested deeper than {@link MAX_JSON_DEPTH} levels is refused (contract §17): the walk that
 * converts the values counts the depth, so the check costs no second pass.
 */
export function parseJsonKeepingDecimals(text: string): unknown {
  const value = parseNotTooDeep(text);
  // A lone surrogate comes from a `\uD800`-style escape, or as a raw code unit from a body in
  // another charset (UTF-16 carries them; valid UTF-8 never decodes to one). With neither in the
  // text, no string needs the check (issue 25: no walk per string).
  const check = MAY_HOLD_SURROGATE.test(text) ? checkedText : unchecked;
  if (!isPlainObject(value)) return plainValues(value, 1, check);
  // fromEntries defines own properties: a `__proto__` key stays a plain (ignored) key.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      check(key),
      DECIMAL_KEYS.has(key) && isLosslessNumber(item) ? item.value : plainValues(item, 2, check),
    ]),
  );
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
 * Every LosslessNumber inside as a JS number, every string passed through `check` (walked in
 * place); `depth` is the level `value` sits at (the document is level 1).
 */
function plainValues(value: unknown, depth: number, check: (text: string) => string): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (typeof value === 'string') return check(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_JSON_DEPTH) throw new Error(`the document is ${TOO_DEEP_MESSAGE}.`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = plainValues(value[i], depth + 1, check);
  } else {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[check(key)] = plainValues(object[key], depth + 1, check);
  }
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** An escaped lone surrogate (`"\ud800"`) is not text: MySQL would silently store U+FFFD instead. */
function checkedText(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new Error('Invalid \\u escape: a lone surrogate is not Unicode text');
  return text;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * body-parser `verify`: a UTF-8 body that is not valid UTF-8 is refused (400) instead of being
 * read with U+FFFD in place of the bad bytes (which would then be stored as if sent).
 */
export function rejectInvalidUtf8(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  if (!/^utf-?8$/i.test(encoding)) return;
  try {
    UTF8.decode(body);
  } catch {
    throw Object.assign(new Error('The request body is not valid UTF-8.'), {
      status: 400,
      type: 'entity.verify.failed',
    });
  }
}

/** A request whose JSON body was read: `rawBody` is its text exactly as received. */
export type RawBodyRequest = Request & { rawBody?: string };

/** The charset parameter of a Content-Type, lower-cased, or null when there is none. */
function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match ? match[1].toLowerCase() : null;
}

/** JSON body parser (1 MB → 413), lossless for money; malformed JSON → 400 (contract §1). */
export function jsonBody(limit: string | number) {
  const types = ['application/json', 'application/*+json'];
  // UTF-8 (the default): the bytes are decoded once, by the same fatal decoder that refuses
  // invalid UTF-8 (issue 25: no iconv decode plus a second decode to check it).
  const readBytes = express.raw({ type: types, limit });
  // Another charset: body-parser decodes it (or answers 415 for an unknown one).
  const readText = express.text({ type: types, limit, verify: rejectInvalidUtf8 });
  return (req: Request, res: Response, next: NextFunction): void => {
    const charset = charsetOf(req.headers['content-type']);
    const utf8 = charset === null || /^utf-?8$/.test(charset);
    (utf8 ? readBytes : readText)(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (utf8) {
        if (!Buffer.isBuffer(req.body)) return next();
        try {
          req.body = UTF8.decode(req.body);
        } catch {
          return next(
            Object.assign(new Error('The request body is not valid UTF-8.'), {
              status: 400,
              type: 'entity.verify.failed',
            }),
          );
        }
      }
      if (typeof req.body !== 'string') return next();
      // The exact bytes as text, for signatures computed over them (provider notifications).
      (req as RawBodyRequest).rawBody = req.body;
      if (req.body.trim() === '') {
        req.body = {};
        return next();
      }
      try {
        req.body = parseJsonKeepingDecimals(req.body);
        next();
      } catch (parseError) {
        next(
          Object.assign(new Error((parseError as Error).message), {
            type: 'entity.parse.failed',
            status: 400,
          }),
        );
      }
    });
  };
}
