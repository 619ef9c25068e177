import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  MinLength,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
  IsString,
  Matches,
  Max,
  Min,
  IsUrl,
  MaxLength,
} from 'class-validator';
import { MSG } from './messages';
import { presence } from './presence';
import { MaxChars } from './custom-validators';

/**
 * Composite field decorators: validator + OpenAPI schema in one place, so a limit is written once
 * and reaches both the 400 answer and the docs (STYLE "Limits live once").
 */
interface FieldOptions {
  optional?: boolean;
  example?: unknown;
  description?: string;
  nullable?: boolean;
  /** With `optional`: the field may be left out, but an explicit `null` is refused (DRF's allow_null=False). */
  notNull?: boolean;
}

/** The OpenAPI half of a composite field decorator (also used by the admin DTOs' fields). */
export function apiProperty(
  opts: Pick<FieldOptions, 'optional' | 'example' | 'description' | 'nullable'>,
  schema: ApiPropertyOptions,
): PropertyDecorator {
  const base = {
    ...schema,
    ...(opts.example !== undefined ? { example: opts.example } : {}),
    ...(opts.description ? { description: opts.description } : {}),
    ...(opts.nullable ? { nullable: true } : {}),
  };
  return opts.optional ? ApiPropertyOptional(base) : ApiProperty(base);
}

/** Public-API fields: an optional field accepts `null` (as unset) unless `notNull` says otherwise. */
const presenceOf = (opts: FieldOptions): PropertyDecorator[] =>
  presence({ optional: opts.optional, nullable: opts.optional && !opts.notNull });

/** A string of at most `max` characters; a required one may not be blank (DRF's `allow_blank=False`). */
export const TextField = (max: number, opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, maxLength: max, ...(opts.optional ? {} : { minLength: 1 }) }),
    ...presenceOf(opts),
    IsString({ message: MSG.string }),
    ...(opts.optional ? [] : [MinLength(1, { message: MSG.blank })]),
    MaxChars(max, { message: MSG.maxLength(max) }),
  );

export const UrlField = (max: number, opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, maxLength: max, format: 'uri', pattern: '^https?://' }),
    ...presenceOf(opts),
    IsString({ message: MSG.string }),
    MaxChars(max, { message: MSG.maxLength(max) }),
    IsUrl(
      { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
      { message: MSG.url },
    ),
  );

/** What the service's e-mail rule needs at least: a local part, `@`, a dotted domain, a TLD of 2+. */
export const EMAIL_PATTERN = '^[^\\s@]+@([^\\s@.]+\\.)+[^\\s@.]{2,}$';

export const EmailField = (max: number, opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, {
      type: String,
      maxLength: max,
      format: 'email',
      // The service's rule (validator.js isEmail) is stricter than JSON Schema's `email`: a dotted domain.
      pattern: EMAIL_PATTERN,
    }),
    ...presenceOf(opts),
    IsString({ message: MSG.string }),
    MaxChars(max, { message: MSG.maxLength(max) }),
    IsEmail({}, { message: MSG.email }),
  );

export const ChoiceField = (values: readonly string[], opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, enum: [...values] }),
    ...presenceOf(opts),
    IsIn([...values], { message: MSG.choice }),
  );

/** Reads the usual textual spellings of a boolean (form bodies carry only text). */
export function toBoolean(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  return value;
}

export const BoolField = (opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: Boolean }),
    ...presenceOf(opts),
    Transform(({ value }: { value: unknown }) => toBoolean(value)),
    IsBoolean({ message: MSG.boolean }),
  );

export const EmailListField = (
  maxItems: number,
  maxLength: number,
  opts: FieldOptions = {},
): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, isArray: true, maxItems, format: 'email', pattern: EMAIL_PATTERN }),
    ...presenceOf(opts),
    IsArray({ message: MSG.list }),
    ArrayMaxSize(maxItems, { message: MSG.maxItems(maxItems) }),
    IsString({ each: true, message: MSG.string }),
    MaxLength(maxLength, { each: true, message: MSG.maxLength(maxLength) }),
    IsEmail({}, { each: true, message: MSG.email }),
  );

/** A JSON number read as its decimal text (the JSON parser keeps the original digits). */
export const numberToText = ({ value }: { value: unknown }): unknown =>
  typeof value === 'number' ? String(value) : value;

/** A whole number's text (`"12"`) as the number: form bodies carry only text, DRF reads both. */
export function toInteger(value: unknown): unknown {
  return typeof value === 'string' && /^-?\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : value;
}

/** An integer in `min`..`max`. */
export const IntField = (min: number, max: number, opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: 'integer', minimum: min, maximum: max }),
    ...presenceOf(opts),
    Transform(({ value }: { value: unknown }) => toInteger(value)),
    IsInt({ message: MSG.integer }),
    Min(min, { message: MSG.minValue(min) }),
    Max(max, { message: MSG.maxValue(max) }),
  );

/** A calendar date, `YYYY-MM-DD` (ISO 8601), that exists. */
export const DateField = (opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, format: 'date' }),
    ...presenceOf(opts),
    IsString({ message: MSG.string }),
    Matches(/^\d{4}-\d{2}-\d{2}$/, { message: MSG.date }),
    IsISO8601({ strict: true }, { message: MSG.date }),
  );
