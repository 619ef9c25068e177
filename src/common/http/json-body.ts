import express, { NextFunction, Request, Response } from 'express';
import { isLosslessNumber, parse } from 'lossless-json';

/** Keys whose JSON numbers are read as their exact decimal text (SPEC §4 `amount`). */
const DECIMAL_KEYS = new Set(['amount', 'fee_fixed', 'fee_percent']);

/** Parses JSON keeping the digits of money: `12.50` arrives as the text "12.50", not 12.5. */
export function parseJsonKeepingDecimals(text: string): unknown {
  return parse(text, (key, value) => {
    if (!isLosslessNumber(value)) return value;
    return DECIMAL_KEYS.has(key) ? value.value : Number(value.value);
  });
}

/** JSON body parser (1 MB → 413), lossless for money; malformed JSON → 400 (SPEC §1). */
export function jsonBody(limit: string) {
  const readText = express.text({ type: ['application/json', 'application/*+json'], limit });
  return (req: Request, res: Response, next: NextFunction): void => {
    readText(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (typeof req.body !== 'string') return next();
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
