import type { ValidationArguments } from 'class-validator';

/** DRF's wording, so clients written against the public API read the same messages (contract §2). */
export const MSG = {
  required: 'This field is required.',
  notNull: 'This field may not be null.',
  blank: 'This field may not be blank.',
  string: 'Not a valid string.',
  boolean: 'Must be a valid boolean.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  email: 'Enter a valid email address.',
  url: 'Enter a valid URL.',
  maxLength: (max: number) => `Ensure this field has no more than ${max} characters.`,
  maxItems: (max: number) => `Ensure this field has no more than ${max} elements.`,
  list: (args: ValidationArguments) => `Expected a list of items but got type "${pyType(args.value)}".`,
  dict: (args: ValidationArguments) => `Expected a dictionary of items but got type "${pyType(args.value)}".`,
  choice: (args: ValidationArguments) => `"${choiceText(args)}" is not a valid choice.`,
  greaterThanZero: 'Ensure this value is greater than 0.',
  minLength: (min: number) => `Ensure this field has at least ${min} characters.`,
  minValue: (min: number | string) => `Ensure this value is greater than or equal to ${min}.`,
  maxValue: (max: number | string) => `Ensure this value is less than or equal to ${max}.`,
  maxDecimals: (max: number) => `Ensure that there are no more than ${max} decimal places.`,
  maxIntegerDigits: (max: number) =>
    `Ensure that there are no more than ${max} digits before the decimal point.`,
  date: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  dateTime: 'Datetime has wrong format. Use ISO 8601, e.g. 2030-01-31T12:00:00Z.',
  currencyCode: 'Enter a 3-letter ISO 4217 currency code.',
  gatewayCode: 'Enter a valid code: 1-64 characters among lowercase letters, digits, "_" and "-".',
  pgName: 'Enter a valid payment gateway name: 1-64 characters among lowercase letters, digits, "_" and "-".',
  username: 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.',
} as const;

export const requiredMessage = (args: ValidationArguments): string =>
  args.value === null ? MSG.notNull : MSG.required;

/**
 * The offending value of an `IsIn` check. With `each: true` the value is the whole list: name the
 * first item that is not allowed (`"shipped"`, not `"created,shipped"`).
 */
function choiceText(args: ValidationArguments): string {
  const allowed = args.constraints?.[0] as unknown;
  let value: unknown = args.value;
  if (Array.isArray(value) && Array.isArray(allowed)) {
    const bad = (value as unknown[]).find((item) => !allowed.includes(item));
    if (bad !== undefined) value = bad;
  }
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** The type name DRF would print for a JSON value. */
export function pyType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'boolean':
      return 'bool';
    case 'object':
      return 'dict';
    default:
      return typeof value;
  }
}
