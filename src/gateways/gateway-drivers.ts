import { Injectable } from '@nestjs/common';
import { stripeAmountRule } from '../payments/providers/stripe/stripe-amount-rule';

/**
 * The driver catalogue (contract §20 "Driver catalogue" and "Configuring a driver"): the drivers a
 * gateway's `pg` can name, and the settings each one takes. The payment code looks a driver up here;
 * the admin API and console validate and show settings from here.
 */

/** How the customer pays through a driver. */
export type DriverFlow = 'card_form' | 'redirect' | 'offline';
export type DriverOperation = 'capture' | 'void' | 'refund' | 'partial_capture' | 'partial_refund';
/** What a setting's value must look like (checked in settings-validation.ts). */
export type SettingKind = 'text' | 'url' | 'integer';
export type SettingValue = string | number;

export interface DriverSetting {
  name: string;
  required: boolean;
  /** Write-only: stored encrypted, never shown (contract §20 "Secrets are write-only"). */
  secret: boolean;
  /** Taken when the gateway has no value; `null`: none (or one that depends on the gateway, see `description`). */
  default: SettingValue | null;
  kind: SettingKind;
  /** Exact length in characters, when the provider fixes one. */
  length?: number;
  /** A `url` that must be an origin only (scheme, host, port): the driver adds every path itself. */
  origin?: boolean;
  min?: number;
  max?: number;
  description: string;
}

export interface GatewayDriver {
  pg: string;
  name: string;
  flow: DriverFlow;
  settings: readonly DriverSetting[];
  operations: readonly DriverOperation[];
  tokenizable: boolean;
  /** The only currencies it can take, or null for any. */
  currencies: readonly string[] | null;
  /**
   * Why the provider cannot charge or move `amount` (decimal text) in `currency`, as the message of
   * a 400 under `amount`, or null when it can (contract §20.1: Stripe's amount rule, checked at
   * create/update and before a capture or refund is sent). Absent: any amount the currency's
   * digits allow.
   */
  amountProblem?: (amount: string, currency: string) => string | null;
}

/** Contract §20: a call a customer or merchant waits on is bounded by `timeout_ms` (≤ 9000, §17's 10 s). */
export const TIMEOUT_MS_DEFAULT = 8000;
export const TIMEOUT_MS_MAX = 9000;

/** KNET's hosts (KNET's merchant integration manual K-064 §3.1, §3.7.2): test and production. */
export const KNET_HOSTS = {
  test: {
    payment_url: 'https://www.kpaytest.com.kw/kpg/PaymentHTTP.htm',
    inquiry_url: 'https://www.kpaytest.com.kw/kpg/tranPipe.htm',
  },
  production: {
    payment_url: 'https://www.kpay.com.kw/kpg/PaymentHTTP.htm',
    inquiry_url: 'https://www.kpay.com.kw/kpg/tranPipe.htm',
  },
} as const;

const text = (name: string, description: string, more: Partial<DriverSetting> = {}): DriverSetting => ({
  name,
  required: false,
  secret: false,
  default: null,
  kind: 'text',
  description,
  ...more,
});
const url = (name: string, description: string, more: Partial<DriverSetting> = {}): DriverSetting =>
  text(name, description, { kind: 'url', ...more });

const TIMEOUT_MS: DriverSetting = {
  name: 'timeout_ms',
  required: false,
  secret: false,
  default: TIMEOUT_MS_DEFAULT,
  kind: 'integer',
  min: 1,
  max: TIMEOUT_MS_MAX,
  description: `How long (ms) a provider call that a customer or merchant waits on may take; at most ${TIMEOUT_MS_MAX}.`,
};

const ALL_OPERATIONS: readonly DriverOperation[] = [
  'capture',
  'void',
  'refund',
  'partial_capture',
  'partial_refund',
];

export const GATEWAY_DRIVERS: readonly GatewayDriver[] = [
  {
    pg: 'sandbox',
    name: 'Sandbox (test cards)',
    flow: 'card_form',
    settings: [TIMEOUT_MS],
    operations: ALL_OPERATIONS,
    tokenizable: true,
    currencies: null,
  },
  {
    pg: 'cash',
    name: 'Cash',
    flow: 'offline',
    settings: [TIMEOUT_MS],
    operations: ['refund', 'partial_refund'],
    tokenizable: false,
    currencies: null,
  },
  {
    pg: 'mpgs',
    name: 'Mastercard Gateway (MPGS)',
    flow: 'redirect',
    settings: [
      text('merchant_id', 'The merchant id the bank issued.', { required: true }),
      text('api_password', 'The Integration (API) password of Merchant Administration.', {
        required: true,
        secret: true,
      }),
      url('api_base_url', "The bank's gateway host, e.g. https://test-gateway.mastercard.com.", {
        required: true,
      }),
      text('api_version', 'The REST API version, 63 or more.', { default: 100, kind: 'integer', min: 63 }),
      text('notification_secret', 'The webhook secret of Merchant Administration (X-Notification-Secret).', {
        secret: true,
      }),
      text('merchant_name', 'The name shown on the Hosted Payment Page.'),
      TIMEOUT_MS,
    ],
    // Capture (also partial), void, refund (also partial) as MPGS transaction operations; saved
    // cards are MPGS tokens (the merchant profile needs gateway tokenization).
    operations: ALL_OPERATIONS,
    tokenizable: true,
    currencies: null,
  },
  {
    pg: 'knet',
    name: 'KNET',
    flow: 'redirect',
    settings: [
      text('tranportal_id', 'The tranportal id KNET issued.', { required: true }),
      text('tranportal_password', 'The tranportal password.', { required: true, secret: true }),
      text('resource_key', 'The terminal resource key (16 characters).', {
        required: true,
        secret: true,
        length: 16,
      }),
      url(
        'payment_url',
        "KNET's payment page. Default: KNET's test host on a sandbox gateway, else production.",
      ),
      url(
        'inquiry_url',
        "KNET's tranPipe (inquiry, refund). Default: test host on a sandbox gateway, else production.",
      ),
      TIMEOUT_MS,
      // Contract §20.1: KNET's page stops taking payment after a time limit (K-064 §10
      // IPAY0100042) whose length KNET does not publish; until it has passed an attempt whose
      // page KNET reports open is never written off (docs/gateways/knet.md).
      text(
        'page_timeout_minutes',
        "How long (minutes) KNET's payment page takes a payment after it opens: ask KNET for the terminal's limit.",
        { default: 30, kind: 'integer', min: 1, max: 1440 },
      ),
    ],
    operations: ['refund', 'partial_refund'],
    tokenizable: false,
    currencies: ['KWD'],
  },
  {
    pg: 'stripe',
    name: 'Stripe',
    flow: 'redirect',
    settings: [
      text('secret_key', "The account's secret API key (sk_… or rk_…).", { required: true, secret: true }),
      text(
        'webhook_secret',
        "The webhook endpoint's signing secret (whsec_…); unset, notifications are refused.",
        {
          secret: true,
        },
      ),
      // Stripe's SDK takes a host and a port, never a path (stripe-client.ts refuses one at every call).
      url('api_base_url', "Stripe's API host (an origin: no path).", {
        default: 'https://api.stripe.com',
        origin: true,
      }),
      TIMEOUT_MS,
    ],
    operations: ALL_OPERATIONS,
    tokenizable: true,
    currencies: null,
    amountProblem: stripeAmountRule,
  },
];

/**
 * Whether the customer types the CVC to pay with a card saved on this gateway (a card's
 * `cvv_required`, contract §15): on a `card_form` gateway's page, yes; a redirect provider charges
 * its own saved card without one. An unknown gateway (deleted since) → true, the safe answer.
 */
export function savedCardAsksCvc(gateway: { pg: string } | null): boolean {
  const flow = GATEWAY_DRIVERS.find((driver) => driver.pg === gateway?.pg)?.flow;
  return flow === undefined || flow === 'card_form';
}

/** The driver catalogue as an injectable: what the admin API, the console and the payments read. */
@Injectable()
export class GatewayDrivers {
  private readonly byPg = new Map(GATEWAY_DRIVERS.map((d) => [d.pg, d]));

  list(): readonly GatewayDriver[] {
    return GATEWAY_DRIVERS;
  }

  /** The driver a `pg` names, or null when it names none. */
  find(pg: string): GatewayDriver | null {
    return this.byPg.get(pg) ?? null;
  }

  names(): string[] {
    return [...this.byPg.keys()];
  }

  /** The driver's {@link GatewayDriver.amountProblem} for `amount` in `currency`; null when none applies. */
  amountProblem(pg: string, amount: string, currency: string): string | null {
    return this.find(pg)?.amountProblem?.(amount, currency) ?? null;
  }
}
