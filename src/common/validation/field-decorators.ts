import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  MinLength,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { MSG, requiredMessage } from './messages';
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

function presence(opts: FieldOptions): PropertyDecorator[] {
  if (opts.optional && opts.notNull)
    return [
      ValidateIf((_: object, value: unknown) => value !== undefined),
      IsDefined({ message: requiredMessage }),
    ];
  return opts.optional ? [IsOptional()] : [IsDefined({ message: requiredMessage })];
}

/** A string of at most `max` characters; a required one may not be blank (DRF's `allow_blank=False`). */
export const TextField = (max: number, opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, maxLength: max, ...(opts.optional ? {} : { minLength: 1 }) }),
    ...presence(opts),
    IsString({ message: MSG.string }),
    ...(opts.optional ? [] : [MinLength(1, { message: MSG.blank })]),
    MaxChars(max, { message: MSG.maxLength(max) }),
  );

export const UrlField = (max: number, opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, maxLength: max, format: 'uri', pattern: '^https?://' }),
    ...presence(opts),
    IsString({ message: MSG.string }),
    MaxChars(max, { message: MSG.maxLength(max) }),
    IsUrl(
      { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
      { message: MSG.url },
    ),
  );

export const EmailField = (max: number, opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, maxLength: max, format: 'email' }),
    ...presence(opts),
    IsString({ message: MSG.string }),
    MaxChars(max, { message: MSG.maxLength(max) }),
    IsEmail({}, { message: MSG.email }),
  );

export const ChoiceField = (values: readonly string[], opts: FieldOptions = {}): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, enum: [...values] }),
    ...presence(opts),
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
    ...presence(opts),
    Transform(({ value }: { value: unknown }) => toBoolean(value)),
    IsBoolean({ message: MSG.boolean }),
  );

export const EmailListField = (
  maxItems: number,
  maxLength: number,
  opts: FieldOptions = {},
): PropertyDecorator =>
  applyDecorators(
    apiProperty(opts, { type: String, isArray: true, maxItems, format: 'email' }),
    ...presence(opts),
    IsArray({ message: MSG.list }),
    ArrayMaxSize(maxItems, { message: MSG.maxItems(maxItems) }),
    IsString({ each: true, message: MSG.string }),
    MaxLength(maxLength, { each: true, message: MSG.maxLength(maxLength) }),
    IsEmail({}, { each: true, message: MSG.email }),
  );
