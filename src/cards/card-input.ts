import { number as cardNumber } from 'card-validator';
import luhn10 from 'card-validator/dist/luhn-10';
import { FieldErrors, type FieldErrorTree, addFieldError } from '../common/errors/domain-errors';

/** Name on card: at most this many characters. */
export const NAME_ON_CARD_MAX = 64;

/**
 * A card as typed by the customer, checked (contract §15). Lives for one request: the number and the
 * CVC go to the gateway and nowhere else (never a column, never a log line).
 */
export interface NewCard {
  number: string;
  expiryMonth: number;
  /** Four digits. */
  expiryYear: number;
  cvc: string;
  nameOnCard: string;
  /** `Visa`, `Mastercard`, `American Express`… (card-validator's names), `Card` when unrecognised. */
  brand: string;
}

/** The card fields of a form or a request body, as sent. */
export interface CardFields {
  card?: unknown;
  expiry?: unknown;
  cvc?: unknown;
  name_on_card?: unknown;
}

/** What a caller may leave out: the §9 test helper takes just `card`, the payment page everything. */
export interface CardDefaults {
  expiry?: string;
  cvc?: string;
  nameOnCard?: string;
}

const REQUIRED = 'This field is required.';

/**
 * Defaults for callers that send only the number (the §9 test helper): an expiry five years
 * ahead, CVC `123`, no name.
 */
export function numberOnlyDefaults(now: Date = new Date()): CardDefaults {
  return { expiry: `12/${now.getUTCFullYear() + 5}`, cvc: '123', nameOnCard: '' };
}

/**
 * Checks every card field and reports all problems at once (field errors under `card`, `expiry`,
 * `cvc`, `name_on_card`): a Luhn-valid number of 12–19 digits (spaces and dashes between groups
 * allowed), an expiry `MM/YY` (or `MM/YYYY`) not in the past, a CVC of 3–4 digits.
 */
export function readNewCard(
  fields: CardFields,
  defaults: CardDefaults = {},
  now: Date = new Date(),
): NewCard {
  const errors: FieldErrorTree = {};
  const number = readNumber(fields.card, errors);
  const expiry = readExpiry(present(fields.expiry) ? fields.expiry : defaults.expiry, now, errors);
  const cvc = readCvc(present(fields.cvc) ? fields.cvc : defaults.cvc, errors);
  const nameOnCard = readName(
    present(fields.name_on_card) ? fields.name_on_card : defaults.nameOnCard,
    errors,
  );
  if (Object.keys(errors).length) throw new FieldErrors(errors);
  return {
    number: number!,
    expiryMonth: expiry!.month,
    expiryYear: expiry!.year,
    cvc: cvc!,
    nameOnCard: nameOnCard!,
    brand: cardNumber(number).card?.niceType ?? 'Card',
  };
}

/** A CVC typed for a saved card (3–4 digits); 400 under `cvc` otherwise. */
export function readSavedCardCvc(value: unknown): string {
  const errors: FieldErrorTree = {};
  const cvc = readCvc(value, errors);
  if (Object.keys(errors).length) throw new FieldErrors(errors);
  return cvc!;
}

/** Whether a card expiring at the end of `month`/`year` has expired by `now` (UTC). */
export function isExpired(month: number, year: number, now: Date = new Date()): boolean {
  return year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1);
}

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

function readNumber(value: unknown, errors: FieldErrorTree): string | undefined {
  if (!present(value)) return void addFieldError(errors, 'card', REQUIRED);
  const digits = typeof value === 'string' ? value.replace(/[\s-]/g, '') : '';
  if (!/^\d{12,19}$/.test(digits) || !luhn10(digits)) {
    return void addFieldError(errors, 'card', 'Enter a valid card number.');
  }
  return digits;
}

function readExpiry(
  value: unknown,
  now: Date,
  errors: FieldErrorTree,
): { month: number; year: number } | undefined {
  if (!present(value)) return void addFieldError(errors, 'expiry', REQUIRED);
  const match = typeof value === 'string' ? /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(value) : null;
  const month = match ? Number(match[1]) : 0;
  if (!match || month < 1 || month > 12) {
    return void addFieldError(errors, 'expiry', 'Enter the expiry date as MM/YY.');
  }
  const year = match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (isExpired(month, year, now)) return void addFieldError(errors, 'expiry', 'This card has expired.');
  return { month, year };
}

function readCvc(value: unknown, errors: FieldErrorTree): string | undefined {
  if (!present(value)) return void addFieldError(errors, 'cvc', REQUIRED);
  if (typeof value !== 'string' || !/^\d{3,4}$/.test(value.trim())) {
    return void addFieldError(errors, 'cvc', 'Enter the 3 or 4 digits of the security code.');
  }
  return value.trim();
}

function readName(value: unknown, errors: FieldErrorTree): string | undefined {
  if (value === undefined || value === null) return void addFieldError(errors, 'name_on_card', REQUIRED);
  if (typeof value !== 'string') return void addFieldError(errors, 'name_on_card', 'Not a valid string.');
  const name = value.trim().replace(/\s+/g, ' ');
  if (name.length > NAME_ON_CARD_MAX) {
    return void addFieldError(
      errors,
      'name_on_card',
      `Ensure this field has no more than ${NAME_ON_CARD_MAX} characters.`,
    );
  }
  return name;
}
