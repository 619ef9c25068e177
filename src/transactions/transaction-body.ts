import type { Request } from 'express';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { addFieldError, FieldErrors, FieldErrorTree } from '../common/errors/domain-errors';
import {
  holdsMoreValuesThan,
  MAX_JSON_DEPTH,
  nestedDeeperThan,
  TOO_DEEP_MESSAGE,
} from '../common/http/json-depth';
import { MAX_JSON_VALUES } from '../common/http/json-parse';
import { pyType } from '../common/validation/messages';
import { principalOf } from '../auth/authenticated.decorator';
import type { Principal } from '../auth/principal';

export type BodyMediaType = 'json' | 'form' | 'multipart';

/** A create/update body as received: its fields (form values already decoded) and files. */
export interface TransactionBody {
  mediaType: BodyMediaType;
  fields: Record<string, unknown>;
  files: Express.Multer.File[];
}

const LIST_FIELDS = ['pg_codes', 'email_recipients'];
const DICT_FIELDS = ['billing_address', 'notifications', 'extra'];

/**
 * contract §1: in multipart/urlencoded bodies a list may be a repeated key or a JSON string, and a
 * dict is a JSON string. Turns such a body into the JSON shapes the DTO validates.
 */
export function decodeFormFields(raw: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...raw };
  const errors: FieldErrorTree = {};
  for (const name of LIST_FIELDS) {
    const value = fields[name];
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    if (items.length === 1 && items[0] === '') {
      fields[name] = null; // an empty form input: not set (create) or cleared (update)
    } else if (items.length === 1 && typeof items[0] === 'string' && items[0].trim().startsWith('[')) {
      const parsed = parseJson(items[0]);
      if (parsed === INVALID) addFieldError(errors, name, 'Value must be valid JSON.');
      else if (tooDeep(parsed)) addFieldError(errors, name, TOO_DEEP);
      else if (tooMany(parsed)) addFieldError(errors, name, TOO_MANY);
      else fields[name] = parsed;
    } else {
      fields[name] = items;
    }
  }
  for (const name of DICT_FIELDS) {
    const value = fields[name];
    if (typeof value !== 'string') continue;
    if (value.trim() === '') {
      fields[name] = null;
      continue;
    }
    const parsed = parseJson(value);
    if (parsed === INVALID) addFieldError(errors, name, 'Value must be valid JSON.');
    else if (tooDeep(parsed)) addFieldError(errors, name, TOO_DEEP);
    else if (tooMany(parsed)) addFieldError(errors, name, TOO_MANY);
    else fields[name] = parsed;
  }
  // An empty duration input is "not set" in a form; in JSON `""` is a wrong value (400).
  if (fields.expiration_time === '') delete fields.expiration_time;
  if (Object.keys(errors).length) throw new FieldErrors(errors);
  return fields;
}

/** contract §17, as for a JSON body: the field sits at level 2 of the body. */
const tooDeep = (value: unknown): boolean => nestedDeeperThan(value, MAX_JSON_DEPTH - 1);
const TOO_DEEP = `Value is ${TOO_DEEP_MESSAGE} (the body counts as one).`;
/** contract §17, as for a JSON body: a field's JSON string holds at most as many values as a body. */
const tooMany = (value: unknown): boolean => holdsMoreValuesThan(value, MAX_JSON_VALUES);
const TOO_MANY = `Value holds more than ${MAX_JSON_VALUES} values.`;

const INVALID = Symbol('invalid');
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID;
  }
}

export function mediaTypeOf(req: Request): BodyMediaType {
  if (req.is('multipart/form-data')) return 'multipart';
  if (req.is('application/x-www-form-urlencoded')) return 'form';
  return 'json';
}

/** The transaction body of the request, decoded by media type (the global pipe skips it). */
export const TransactionBodyParam = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): TransactionBody =>
    transactionBodyOf(ctx.switchToHttp().getRequest<Request>()),
);

/** The request's transaction body, decoded by media type; 400 when it is not an object. */
export function transactionBodyOf(req: Request): TransactionBody {
  const mediaType = mediaTypeOf(req);
  // No body at all reads as `{}`; a JSON `null` body is a value of the wrong kind.
  const raw = req.body === undefined ? {} : (req.body as unknown);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new FieldErrors({
      non_field_errors: [`Invalid data. Expected a dictionary, but got ${pyType(raw)}.`],
    });
  }
  const fields =
    mediaType === 'json'
      ? (raw as Record<string, unknown>)
      : decodeFormFields(raw as Record<string, unknown>);
  const files = Array.isArray(req.files) ? req.files : [];
  return { mediaType, fields, files };
}

/** A PATCH or PUT of a transaction: which one, by whom, the body, and the ETag the caller holds. */
export interface TransactionUpdate {
  sessionId: string;
  principal: Principal;
  body: TransactionBody;
  /** `If-Match`: refused with 412 when it no longer names the stored version. */
  ifMatch: string | undefined;
}

/** The request as a {@link TransactionUpdate} (its body decoded as {@link TransactionBodyParam} does). */
export const TransactionUpdateParam = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): TransactionUpdate => {
    const req = ctx.switchToHttp().getRequest<Request>();
    return {
      sessionId: String(req.params.session_id),
      principal: principalOf(req),
      body: transactionBodyOf(req),
      ifMatch: req.get('if-match'),
    };
  },
);
