import { LIMITS } from '../../common/validation/limits';

/** Limits of admin-only fields (the shared ones live in common/validation/limits.ts). */
export const ADMIN_LIMITS = {
  /** HMAC keys shorter than this are guessable (contract §10: a key is a secret, not a password). */
  webhookSigningKeyMin: 16,
  webhookSigningKey: 255,
  passwordMin: 8,
  passwordMax: 128,
  currencyDigitsMax: 6,
  feeIntegerDigits: 13,
  feeDecimals: 6,
  feePercentMax: 100,
  iconUrl: LIMITS.url,
  pg: 64,
  listItems: 100,
} as const;

export const CURRENCY_CODE = /^[A-Za-z]{3}$/;
export const GATEWAY_CODE = /^[a-z0-9_-]{1,64}$/;
export const USERNAME = /^[\w.@+-]{1,150}$/;
export const PG_NAME = /^[a-z0-9_-]{1,64}$/;
