import { Inject, Injectable } from '@nestjs/common';
import type { Gateway } from './gateway.entity';
import type { SettingValue } from './setting-value';

/**
 * The driver catalogue (contract §20 "Driver catalogue" and "Configuring a driver"): the drivers a
 * gateway's `pg` can name, and the settings each one takes. The payment code looks a driver up here;
 * the admin API and console validate and show settings from here. Each entry is written beside its
 * driver (`src/payments/drivers/<name>/<name>.catalogue.ts`) and reaches this layer through the
 * {@link DRIVER_CATALOGUE} token: these are its types and the pieces entries share.
 */

/** How the customer pays through a driver. */
export type DriverFlow = 'card_form' | 'redirect' | 'offline';
export type DriverOperation = 'capture' | 'void' | 'refund' | 'partial_capture' | 'partial_refund';
/**
 * What a setting's value must look like (checked in settings-validation.ts): `routes` is a routing
 * gateway's list of member gateways (contract §21).
 */
export type SettingKind = 'text' | 'url' | 'integer' | 'boolean' | 'routes';
export {
  ROUTES_MAX,
  ROUTE_WEIGHT_MAX,
  ROUTE_WEIGHT_MIN,
  type RouteValue,
  type SettingValue,
} from './setting-value';

export interface DriverSetting {
  name: string;
  required: boolean;
  /** Write-only: stored encrypted, never shown (contract §20 "Secrets are write-only"). */
  secret: boolean;
  /** Taken when the gateway has no value; `null`: none (or one that depends on the gateway, see `description`). */
  default: string | number | boolean | null;
  kind: SettingKind;
  /** Exact length in characters, when the provider fixes one. */
  length?: number;
  /** A `url` that must be an origin only (scheme, host, port): the driver adds every path itself. */
  origin?: boolean;
  min?: number;
  max?: number;
  /** A `text` setting that takes one of these values only. */
  choices?: readonly string[];
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
  /**
   * Defaults that depend on the gateway, applied after the settings' own `default`s to what the
   * gateway leaves unset (KNET: its test hosts on a sandbox gateway, production hosts otherwise).
   */
  gatewayDefaults?: (gateway: Pick<Gateway, 'type'>) => Readonly<Record<string, SettingValue>>;
}

/** Contract §20: a call a customer or merchant waits on is bounded by `timeout_ms` (≤ 9000, §17's 10 s). */
export const TIMEOUT_MS_DEFAULT = 8000;
export const TIMEOUT_MS_MAX = 9000;

/**
 * The parts most catalogue entries share: a setting, a URL setting, `timeout_ms` (contract §20:
 * every driver takes it) and every operation.
 */
export const textSetting = (
  name: string,
  description: string,
  more: Partial<DriverSetting> = {},
): DriverSetting => ({
  name,
  required: false,
  secret: false,
  default: null,
  kind: 'text',
  description,
  ...more,
});
export const urlSetting = (
  name: string,
  description: string,
  more: Partial<DriverSetting> = {},
): DriverSetting => textSetting(name, description, { kind: 'url', ...more });

export const TIMEOUT_MS_SETTING: DriverSetting = {
  name: 'timeout_ms',
  required: false,
  secret: false,
  default: TIMEOUT_MS_DEFAULT,
  kind: 'integer',
  min: 1,
  max: TIMEOUT_MS_MAX,
  description: `How long (ms) a provider call that a customer or merchant waits on may take; at most ${TIMEOUT_MS_MAX}.`,
};

export const ALL_OPERATIONS: readonly DriverOperation[] = [
  'capture',
  'void',
  'refund',
  'partial_capture',
  'partial_refund',
];

/**
 * Injection token of the catalogue: every registered driver's entry, in the order the drivers
 * endpoint lists them. The entries live beside their drivers (`src/payments/drivers/<name>/`, a
 * higher layer); the application provides them here (`DriversModule`), so this layer never imports
 * a driver.
 */
export const DRIVER_CATALOGUE = Symbol('DRIVER_CATALOGUE');

/** The driver catalogue as an injectable: what the admin API, the console and the payments read. */
@Injectable()
export class GatewayDrivers {
  private readonly byPg: ReadonlyMap<string, GatewayDriver>;

  constructor(@Inject(DRIVER_CATALOGUE) private readonly entries: readonly GatewayDriver[]) {
    const twice = entries.filter((entry, i) => entries.findIndex((other) => other.pg === entry.pg) !== i);
    if (twice.length > 0) throw new Error(`Two gateway drivers are registered as pg "${twice[0].pg}"`);
    this.byPg = new Map(entries.map((d) => [d.pg, d]));
  }

  list(): readonly GatewayDriver[] {
    return this.entries;
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

  /**
   * Whether the customer types the CVC to pay with a card saved on this gateway (a card's
   * `cvv_required`, contract §15): on a `card_form` gateway's page, yes; a redirect provider charges
   * its own saved card without one. An unknown gateway (deleted since) → true, the safe answer.
   */
  savedCardAsksCvc(gateway: { pg: string } | null): boolean {
    const flow = gateway ? this.find(gateway.pg)?.flow : undefined;
    return flow === undefined || flow === 'card_form';
  }
}

/** A driver's entry in the catalogue (the name its driver folder uses for {@link GatewayDriver}). */
export type DriverCatalogueEntry = GatewayDriver;
