import express, { NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-errors';
import { parseJsonKeepingDecimals, TooManyValues } from './json-parse';

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

/** Where bodies over `minBytes` are parsed instead of on the event loop (json-parse-thread.ts). */
export interface OffLoopParser {
  minBytes: number;
  parse: (text: string) => Promise<unknown>;
}

/**
 * JSON body parser (1 MB → 413), lossless for money; malformed JSON → 400 (contract §1), more than
 * MAX_JSON_VALUES values → 413 (contract §17, json-parse.ts). Bodies over `offLoop.minBytes` are parsed by
 * `offLoop.parse`, to the same value or error.
 */
export function jsonBody(limit: string | number, offLoop?: OffLoopParser) {
  const types = ['application/json', 'application/*+json'];
  // UTF-8 (the default): the bytes are decoded once, by the same fatal decoder that refuses
  // invalid UTF-8 (no iconv decode plus a second decode to check it: docs/performance.md).
  const readBytes = express.raw({ type: types, limit });
  // Another charset: body-parser decodes it (or answers 415 for an unknown one).
  const readText = express.text({ type: types, limit, verify: rejectInvalidUtf8 });
  return (req: Request, res: Response, next: NextFunction): void => {
    const charset = charsetOf(req.headers['content-type']);
    const utf8 = charset === null || /^utf-?8$/.test(charset);
    (utf8 ? readBytes : readText)(req, res, (error?: unknown) => {
      if (error) return next(error);
      let bytes = 0;
      if (utf8) {
        if (!Buffer.isBuffer(req.body)) return next();
        bytes = req.body.length;
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
      const text = req.body;
      // The exact bytes as text, for signatures computed over them (provider notifications).
      (req as RawBodyRequest).rawBody = text;
      if (text.trim() === '') {
        req.body = {};
        return next();
      }
      const parsed = (value: unknown) => {
        req.body = value;
        next();
      };
      if (offLoop && (bytes || text.length) > offLoop.minBytes) {
        offLoop.parse(text).then(parsed, (parseError: unknown) => next(parserError(parseError)));
        return;
      }
      let value: unknown;
      try {
        value = parseJsonKeepingDecimals(text);
      } catch (parseError) {
        return next(parserError(parseError));
      }
      parsed(value);
    });
  };
}

/** What the parser threw, as body-parser's kind of error (a 503 of the parse thread stays one). */
function parserError(error: unknown): Error {
  if (error instanceof DomainError) return error;
  if (error instanceof TooManyValues)
    return Object.assign(error, { type: 'entity.values.too.many', status: 413 });
  return Object.assign(new Error((error as Error).message), { type: 'entity.parse.failed', status: 400 });
}
