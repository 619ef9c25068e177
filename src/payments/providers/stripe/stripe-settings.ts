/**
 * A `stripe` gateway's settings (contract §20, "Configuring a driver"): the keys the gateway's
 * `settings` object holds for the Stripe driver.
 */
export interface StripeSettings {
  /** The account's secret API key (`sk_live_…`, `sk_test_…` or a restricted `rk_…`); secret. */
  secret_key: string;
  /**
   * The signing secret of the webhook endpoint (`whsec_…`); secret. Without it, notifications are
   * refused and the outcome is learnt from the customer's return and from inquiry.
   */
  webhook_secret?: string | null;
  /** Where Stripe's API answers; https://api.stripe.com unless a test points it elsewhere. */
  api_base_url?: string | null;
  /** How long a call a customer or a merchant waits on may take, in ms (default 8000, max 9000). */
  timeout_ms?: number | null;
}

export const STRIPE_API_BASE_URL = 'https://api.stripe.com';
export const DEFAULT_TIMEOUT_MS = 8000;
/** The connection (TCP and TLS) must be up within this (contract §20 "Provider calls"). */
export const CONNECT_TIMEOUT_MS = 5000;
export const MAX_TIMEOUT_MS = 9000;
/** Calls nobody waits on (the reconciler, inquiry of old attempts) may take this long (contract §20). */
export const BACKGROUND_TIMEOUT_MS = 20_000;

/**
 * How far a webhook's signed timestamp may be from now, in seconds: 300, Stripe's own default
 * (https://docs.stripe.com/webhooks#replay-prevention) and contract §20's 5 minutes.
 */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The secret keys of StripeSettings, which never appear in an answer, a page or a log line. */
export const STRIPE_SECRET_SETTINGS = ['secret_key', 'webhook_secret'] as const;
