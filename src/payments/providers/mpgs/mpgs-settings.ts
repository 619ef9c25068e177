/**
 * The `mpgs` driver's gateway settings (contract §20 "Configuring a driver") and the client's time
 * limits (contract §20 "Provider calls").
 */

/** One setting as the driver catalogue lists it (contract §20 "Driver catalogue"). */
export interface MpgsSettingDefinition {
  name: keyof MpgsSettingsInput;
  required: boolean;
  secret: boolean;
  default: string | number | null;
}

/** The settings an admin stores on an `mpgs` gateway. */
export interface MpgsSettingsInput {
  /** The merchant id the bank issued (for tests it starts with `TEST`). */
  merchant_id: string;
  /** The Integration (API) password of Merchant Administration: a secret. */
  api_password: string;
  /** The bank's gateway host, for example `https://test-bank.mtf.gateway.mastercard.com`. */
  api_base_url: string;
  /** The REST API version in request paths; default {@link DEFAULT_API_VERSION}. */
  api_version?: number | string;
  /** The webhook secret of Merchant Administration, sent back in `X-Notification-Secret`: a secret. */
  notification_secret?: string;
  /** The name shown on the Hosted Payment Page (`interaction.merchant.name`). */
  merchant_name?: string;
  /** How long a call a customer or merchant waits on may take to answer; default 8000, at most 9000. */
  timeout_ms?: number;
}

export const DEFAULT_API_VERSION = 100;
export const DEFAULT_TIMEOUT_MS = 8000;
export const MAX_TIMEOUT_MS = 9000;
/** Contract §20: 5 s to connect. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** Contract §20: calls in the background (reconciler, inquiry of old attempts) may take up to 20 s. */
export const DEFAULT_BACKGROUND_TIMEOUT_MS = 20000;

export const MPGS_SETTINGS: readonly MpgsSettingDefinition[] = [
  { name: 'merchant_id', required: true, secret: false, default: null },
  { name: 'api_password', required: true, secret: true, default: null },
  { name: 'api_base_url', required: true, secret: false, default: null },
  { name: 'api_version', required: false, secret: false, default: DEFAULT_API_VERSION },
  { name: 'notification_secret', required: false, secret: true, default: null },
  { name: 'merchant_name', required: false, secret: false, default: null },
  { name: 'timeout_ms', required: false, secret: false, default: DEFAULT_TIMEOUT_MS },
];

/** Settings with defaults applied, as the client uses them. */
export interface MpgsSettings {
  merchantId: string;
  apiPassword: string;
  /** Without a trailing slash. */
  apiBaseUrl: string;
  apiVersion: number;
  notificationSecret: string | null;
  merchantName: string | null;
  timeoutMs: number;
}

/** Applies defaults and checks the shapes the client relies on; throws an Error naming the key. */
export function resolveMpgsSettings(input: MpgsSettingsInput): MpgsSettings {
  for (const key of ['merchant_id', 'api_password', 'api_base_url'] as const) {
    if (typeof input[key] !== 'string' || input[key].trim() === '') {
      throw new Error(`MPGS setting "${key}" is required.`);
    }
  }
  let base: URL;
  try {
    base = new URL(input.api_base_url);
  } catch {
    throw new Error('MPGS setting "api_base_url" must be an http(s) URL.');
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new Error('MPGS setting "api_base_url" must be an http(s) URL.');
  }
  const apiVersion = Number(input.api_version ?? DEFAULT_API_VERSION);
  // INITIATE CHECKOUT exists from version 63 on; earlier versions used CREATE CHECKOUT SESSION
  // (https://developer.mastercard.com/mastercard-gateway/documentation/build/hosted-checkout/integrate-hosted-checkout/establishing-a-session/).
  if (!Number.isInteger(apiVersion) || apiVersion < 63) {
    throw new Error('MPGS setting "api_version" must be a whole number, 63 or more.');
  }
  const timeoutMs = Number(input.timeout_ms ?? DEFAULT_TIMEOUT_MS);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new Error(`MPGS setting "timeout_ms" must be a whole number from 1 to ${MAX_TIMEOUT_MS}.`);
  }
  return {
    merchantId: input.merchant_id,
    apiPassword: input.api_password,
    apiBaseUrl: input.api_base_url.replace(/\/+$/, ''),
    apiVersion,
    notificationSecret: input.notification_secret || null,
    merchantName: input.merchant_name || null,
    timeoutMs,
  };
}
