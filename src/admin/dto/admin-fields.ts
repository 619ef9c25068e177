import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsInt,
  IsISO8601,
  IsUrl,
  IsOptional,
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
import { apiProperty } from '../../common/validation/field-decorators';
import { Money } from '../../common/money/money';
import { MSG, requiredMessage } from '../../common/validation/messages';

/** OpenAPI `integer` (the Swagger `Number` type would document `number`). */
const Integer = 'integer';

/**
 * Composite field decorators of the admin API (validator + OpenAPI schema together, like
 * common/validation/field-decorators.ts). Admin fields refuse an explicit `null` unless they are
 * `nullable` (then `null` clears the value).
 */
export interface AdminFieldOptions {
  /** May be left out (create: the default applies). */
  optional?: boolean;
  /** `null` is accepted (and clears the value). Otherwise `null` → "This field may not be null.". */
  nullable?: boolean;
  example?: unknown;
  description?: string;
}

function presence(opts: AdminFieldOptions): PropertyDecorator[] {
  if (opts.nullable) {
    // Left out or null: nothing to check (null clears). A required nullable field must be present.
    return opts.optional
      ? [IsOptional()]
      : [IsDefined({ message: MSG.required }), ValidateIf((_: object, v: unknown) => v !== null)];
  }
  return opts.optional
    ? [ValidateIf((_: object, v: unknown) => v !== undefined), IsDefined({ message: requiredMessage })]
    : [IsDefined({ message: requiredMessage })];
}

export const MSG_ADMIN = {
  minLength: (min: number) => `Ensure this field has at least ${min} characters.`,
  minValue: (min: number | string) => `Ensure this value is greater than or equal to ${min}.`,
  maxValue: (max: number | string) => `Ensure this value is less than or equal to ${max}.`,
  maxDecimals: (max: number) => `Ensure that there are no more than ${max} decimal places.`,
  maxIntegerDigits: (max: number) =>
    `Ensure that there are no more than ${max} digits before the decimal point.`,
  dateTime: 'Datetime has wrong format. Use ISO 8601, e.g. 2030-01-31T12:00:00Z.',
} as const;

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
      message: (args: ValidationArguments) => (args.value === '' ? MSG.blank : MSG_ADMIN.minLength(min)),
    }),
    MaxChars(max, { message: MSG.maxLength(max) }),
  );

/** An integer in `min`..`max` (form bodies send its text). */
export const IntField = (min: number, max: number, opts: AdminFieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: Integer, minimum: min, maximum: max }),
    ...presence(opts),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && /^-?\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : value,
    ),
    IsInt({ message: MSG.integer }),
    Min(min, { message: MSG_ADMIN.minValue(min) }),
    Max(max, { message: MSG_ADMIN.maxValue(max) }),
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
    IsString({ message: MSG_ADMIN.dateTime }),
    IsISO8601({ strict: true, strictSeparator: true }, { message: MSG_ADMIN.dateTime }),
    Matches(/(Z|[+-]\d{2}:?\d{2})$/i, { message: MSG_ADMIN.dateTime }),
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
  if (sign && /[1-9]/.test(integer + fraction)) return MSG_ADMIN.minValue(0);
  if (integer.replace(/^0+(?=\d)/, '').length > limits.integerDigits)
    return MSG_ADMIN.maxIntegerDigits(limits.integerDigits);
  if (fraction.replace(/0+$/, '').length > limits.decimals) return MSG_ADMIN.maxDecimals(limits.decimals);
  if (limits.max !== undefined && new Money(value).gt(limits.max)) return MSG_ADMIN.maxValue(limits.max);
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
