import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsISO8601,
  IsUrl,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  registerDecorator,
  ValidateIf,
  ValidationArguments,
} from 'class-validator';
import { MaxChars } from '../../common/validation/custom-validators';
import { apiProperty, toInteger } from '../../common/validation/field-decorators';
import { Money } from '../../common/money/money';
import { MSG } from '../../common/validation/messages';
import { presence, type Presence } from '../../common/validation/presence';

/** OpenAPI `integer` (the Swagger `Number` type would document `number`). */
const Integer = 'integer';

/**
 * Composite field decorators of the admin API (validator + OpenAPI schema together, like
 * common/validation/field-decorators.ts). Admin fields refuse an explicit `null` unless they are
 * `nullable` (then `null` clears the value).
 */
export interface AdminFieldOptions extends Presence {
  example?: unknown;
  description?: string;
}

/** A non-blank string of at most `max` characters. */
export const NameField = (max: number, opts: AdminFieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, minLength: 1, maxLength: max }),
    ...presence(opts),
    IsString({ message: MSG.string }),
    MinLength(1, { message: MSG.blank }),
    MaxChars(max, { message: MSG.maxLength(max) }),
  );

/** A string matching `pattern` (the pattern carries the length limits too). */
export const PatternField = (
  pattern: RegExp,
  maxLength: number,
  message: string,
  opts: AdminFieldOptions & { transform?: (value: string) => string } = {},
): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, maxLength, pattern: pattern.source }),
    ...presence(opts),
    ...(opts.transform
      ? [
          Transform(({ value }: { value: unknown }) =>
            typeof value === 'string' ? opts.transform!(value) : value,
          ),
        ]
      : []),
    IsString({ message: MSG.string }),
    textPattern('matchesPattern', pattern, maxLength, message),
  );

/** One message per value: too long, else not matching (the pattern carries the length too). */
function textPattern(
  name: string,
  pattern: RegExp,
  maxLength: number,
  message: string,
  each = false,
): PropertyDecorator {
  const problem = (value: unknown): string | null => {
    if (typeof value !== 'string') return null; // IsString reports it
    if (value.length > maxLength) return MSG.maxLength(maxLength);
    return pattern.test(value) ? null : message;
  };
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { each, message: (args: ValidationArguments) => problem(args.value) ?? '' },
      validator: { validate: (value: unknown) => problem(value) === null },
    });
  };
}

/** A string of `min`..`max` characters (passwords: never echoed). */
export const SecretField = (min: number, max: number, opts: AdminFieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, minLength: min, maxLength: max, writeOnly: true, format: 'password' }),
    ...presence(opts),
    IsString({ message: MSG.string }),
    MinLength(min, {
      message: (args: ValidationArguments) => (args.value === '' ? MSG.blank : MSG.minLength(min)),
    }),
    MaxChars(max, { message: MSG.maxLength(max) }),
  );

/** An integer in `min`..`max` (form bodies send its text). */
export const IntField = (min: number, max: number, opts: AdminFieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: Integer, minimum: min, maximum: max }),
    ...presence(opts),
    Transform(({ value }: { value: unknown }) => toInteger(value)),
    IsInt({ message: MSG.integer }),
    Min(min, { message: MSG.minValue(min) }),
    Max(max, { message: MSG.maxValue(max) }),
  );

/** A list of strings, each matching `pattern` (`transform` applies to each item first). */
export const CodeListField = (
  pattern: RegExp,
  maxItems: number,
  itemMessage: string,
  opts: AdminFieldOptions & { transform?: (value: string) => string } = {},
): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, isArray: true, maxItems, pattern: pattern.source }),
    ...presence(opts),
    Transform(({ value }: { value: unknown }) =>
      Array.isArray(value) && opts.transform
        ? value.map((item) => (typeof item === 'string' ? opts.transform!(item) : (item as unknown)))
        : value,
    ),
    IsArray({ message: MSG.list }),
    ArrayMaxSize(maxItems, { message: MSG.maxItems(maxItems) }),
    IsString({ each: true, message: MSG.string }),
    Matches(pattern, { each: true, message: itemMessage }),
  );

/** An ISO 8601 date-time with a time zone. */
export const DateTimeField = (opts: AdminFieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, format: 'date-time' }),
    ...presence(opts),
    IsString({ message: MSG.dateTime }),
    IsISO8601({ strict: true, strictSeparator: true }, { message: MSG.dateTime }),
    Matches(/(Z|[+-]\d{2}:?\d{2})$/i, { message: MSG.dateTime }),
  );

/**
 * A non-negative decimal as text (`"0.250"`; a JSON number arrives as its decimal text), at most
 * `integerDigits` digits before the point and `decimals` after, and at most `max` when given.
 */
export const DecimalTextField = (
  limits: { integerDigits: number; decimals: number; max?: number },
  opts: AdminFieldOptions = {},
): PropertyDecorator =>
  applyDecorators(
    apiProperty(
      {
        ...opts,
        description: [opts.description, limits.max !== undefined ? `At most ${limits.max}.` : '']
          .filter(Boolean)
          .join(' '),
      },
      { type: String, pattern: `^\\d{1,${limits.integerDigits}}(\\.\\d{1,${limits.decimals}})?$` },
    ),
    ...presence(opts),
    Transform(({ value }: { value: unknown }) => (typeof value === 'number' ? String(value) : value)),
    decimalTextValidator(limits),
  );

function decimalProblem(
  value: unknown,
  limits: { integerDigits: number; decimals: number; max?: number },
): string | null {
  if (typeof value !== 'string') return MSG.number;
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return MSG.number;
  const [, sign, integer, fraction = ''] = match;
  if (sign && /[1-9]/.test(integer + fraction)) return MSG.minValue(0);
  if (integer.replace(/^0+(?=\d)/, '').length > limits.integerDigits)
    return MSG.maxIntegerDigits(limits.integerDigits);
  if (fraction.replace(/0+$/, '').length > limits.decimals) return MSG.maxDecimals(limits.decimals);
  if (limits.max !== undefined && new Money(value).gt(limits.max)) return MSG.maxValue(limits.max);
  return null;
}

function decimalTextValidator(limits: {
  integerDigits: number;
  decimals: number;
  max?: number;
}): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isDecimalText',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: (args: ValidationArguments) => decimalProblem(args.value, limits) ?? '' },
      validator: { validate: (value: unknown) => decimalProblem(value, limits) === null },
    });
  };
}

/** An absolute http(s) URL of at most `max` characters, or `""` (none). */
export const UrlOrEmptyField = (max: number, opts: AdminFieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, {
      type: String,
      maxLength: max,
      pattern: '^(https?://\\S+)?$',
      description: opts.description ?? 'Absolute http(s) URL, or "" for none',
    }),
    ...presence(opts),
    ValidateIf((_: object, v: unknown) => v !== ''),
    IsString({ message: MSG.string }),
    MaxChars(max, { message: MSG.maxLength(max) }),
    IsUrl(
      { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
      { message: MSG.url },
    ),
  );
