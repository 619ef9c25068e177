import * as iso4217 from 'currency-codes';
import Decimal from 'decimal.js';

/**
 * The MPGS simulator's request checks, answering as MPGS documents errors: HTTP 400 with
 * `{"result":"ERROR","error":{"cause":"INVALID_REQUEST","explanation","field","validationType"}}`
 * where `validationType` is MISSING, INVALID or UNSUPPORTED
 * (https://developer.mastercard.com/mastercard-gateway/documentation/testing/trans-error/).
 */

/** An error answer in MPGS's shape: `{"result":"ERROR","error":{cause, explanation, field, validationType}}`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly errorCause: string,
    readonly explanation: string,
    readonly field?: string,
    readonly validationType?: 'MISSING' | 'INVALID' | 'UNSUPPORTED',
  ) {
    super(explanation);
  }
}

export const missing = (field: string) =>
  new ApiFailure(400, 'INVALID_REQUEST', `Value for field '${field}' must be provided`, field, 'MISSING');
export const invalid = (field: string, explanation: string) =>
  new ApiFailure(400, 'INVALID_REQUEST', explanation, field, 'INVALID');
export const notFound = (what: string) => new ApiFailure(404, 'INVALID_REQUEST', `Unable to find ${what}`);

const AMOUNT = /^\d{1,13}(\.\d+)?$/;

/** An ISO 4217 currency code field. */
export function currencyField(container: Record<string, unknown>, field: string): string {
  const value = container[field.split('.').pop() as string];
  if (value === undefined || value === null || value === '') throw missing(field);
  if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value) || !iso4217.code(value)) {
    throw invalid(field, `Value ${JSON.stringify(value)} is invalid. Currency must be an ISO 4217 code`);
  }
  return value;
}

/** A positive decimal with at most the currency's digits (a JSON string or number). */
export function amountField(container: Record<string, unknown>, field: string, currency: string): string {
  const value = container[field.split('.').pop() as string];
  if (value === undefined || value === null || value === '') throw missing(field);
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !AMOUNT.test(text) || new Decimal(text).lte(0)) {
    throw invalid(field, `Value ${JSON.stringify(value)} is invalid. Amount must be a positive decimal`);
  }
  const digits = iso4217.code(currency)?.digits ?? 2;
  if (new Decimal(text).decimalPlaces() > digits) {
    throw invalid(
      field,
      `Value '${text}' is invalid. ${currency} amounts have at most ${digits} decimal places`,
    );
  }
  return text;
}

/** A JSON string or number as text; anything else as the empty string. */
export function scalarText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

export function objectField(body: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = body[name];
  if (value === undefined || value === null) throw missing(name);
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalid(name, `Value for '${name}' must be an object`);
  return value as Record<string, unknown>;
}

export function requiredString(container: Record<string, unknown>, field: string, key: string): string {
  const value = container[key];
  if (value === undefined || value === null || value === '') throw missing(field);
  if (typeof value !== 'string') throw invalid(field, `Value for '${field}' must be a string`);
  return value;
}

export function optionalString(
  container: Record<string, unknown>,
  field: string,
  key: string,
  maxLength: number,
): string | null {
  const value = container[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(field, `Value for '${field}' must be a string`);
  if (value.length > maxLength) throw invalid(field, `Value must be at most ${maxLength} characters`);
  return value;
}

export function optionalUrl(container: Record<string, unknown>, field: string, key: string): string | null {
  const value = optionalString(container, field, key, 2048);
  if (value === null) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw invalid(field, `Value '${value}' is not a valid URL`);
  }
  return value;
}
