import { registerDecorator, ValidateBy, ValidationArguments, ValidationOptions } from 'class-validator';
import * as countries from 'i18n-iso-countries';
import ISO6391 from 'iso-639-1';
import { amountProblem } from '../money/money';
import { MAX_DURATION_SECONDS, parseDuration } from '../time/duration';
import { MSG } from './messages';

/** Registers a validator whose message depends on what exactly is wrong with the value. */
function describedValidator(
  name: string,
  problem: (value: unknown) => string | null,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { ...options, message: (args: ValidationArguments) => problem(args.value) ?? '' },
      validator: { validate: (value: unknown) => problem(value) === null },
    });
  };
}

/** A positive decimal amount as text, `^\d{1,13}(\.\d+)?$` (contract §4). */
export const IsDecimalText = (options?: ValidationOptions): PropertyDecorator =>
  describedValidator(
    'isDecimalText',
    (value) => {
      if (typeof value !== 'string') return MSG.number;
      switch (amountProblem(value)) {
        case null:
          return null;
        case 'not_positive':
          return MSG.greaterThanZero;
        case 'too_many_integer_digits':
          return MSG.maxIntegerDigits(13);
        default:
          return MSG.number;
      }
    },
    options,
  );

/** `HH:MM:SS` or `D HH:MM:SS`, above zero and at most 30 days. */
export const IsDurationText = (options?: ValidationOptions): PropertyDecorator =>
  describedValidator(
    'isDurationText',
    (value) => {
      if (typeof value !== 'string') return MSG.string;
      const seconds = parseDuration(value);
      if (seconds === null)
        return 'Duration has wrong format. Use one of these formats instead: HH:MM:SS, D HH:MM:SS.';
      if (seconds <= 0) return 'Ensure this duration is greater than 00:00:00.';
      if (seconds > MAX_DURATION_SECONDS)
        return 'Ensure this duration is no longer than 30 days (30 00:00:00).';
      return null;
    },
    options,
  );

/** A real ISO 3166-1 alpha-2 country code. */
export const IsCountryCode = (options?: ValidationOptions): PropertyDecorator =>
  describedValidator(
    'isCountryCode',
    (value) => {
      if (typeof value !== 'string') return MSG.string;
      return /^[A-Z]{2}$/.test(value) && countries.isValid(value)
        ? null
        : `"${value}" is not a valid ISO 3166-1 alpha-2 country code.`;
    },
    options,
  );

/** A 2-letter ISO 639-1 language code. */
export const IsLanguageCode = (options?: ValidationOptions): PropertyDecorator =>
  describedValidator(
    'isLanguageCode',
    (value) => {
      if (typeof value !== 'string') return MSG.string;
      return /^[a-z]{2}$/.test(value) && ISO6391.validate(value)
        ? null
        : `"${value}" is not a valid ISO 639-1 language code.`;
    },
    options,
  );

/** A JSON object (not a list, not null) whose JSON text is at most `maxBytes` bytes. */
export const IsSmallJsonObject = (maxBytes: number, options?: ValidationOptions): PropertyDecorator =>
  describedValidator(
    'isObject',
    (value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return MSG.dict({ value } as ValidationArguments);
      }
      return Buffer.byteLength(JSON.stringify(value), 'utf8') > maxBytes
        ? `Ensure this value has at most ${maxBytes} bytes as JSON.`
        : null;
    },
    options,
  );

/**
 * At most `max` characters, counted in code points as MySQL counts a VARCHAR. class-validator's
 * `MaxLength` does not count variation selectors (U+FE0F), so a value it accepts could overflow the
 * column and fail the insert. Registered as `maxLength`, so errors read the same.
 */
export const MaxChars = (max: number, options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'maxLength',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && [...value].length <= max,
        defaultMessage: () => MSG.maxLength(max),
      },
    },
    options,
  );
