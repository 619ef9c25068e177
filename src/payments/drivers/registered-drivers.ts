import { CashGatewayAdapter } from './cash/cash-driver';
import type { RegisteredDriver } from './drivers.module';
import { KnetDriver } from './knet/knet-driver';
import { MpgsDriver } from './mpgs/mpgs-driver';
import { RouterDriver } from './router/router-driver';
import { SandboxGatewayAdapter } from './sandbox/sandbox-driver';
import { StripeDriver } from './stripe/stripe-driver';

/**
 * The gateway drivers (contract §20): a driver is added by one line here (CONTRIBUTING.md "Add a
 * gateway driver"). Its class carries its catalogue entry; the drivers endpoint, the console's `pg`
 * choice, settings validation, the Nest providers and the pay path's list all come from this list
 * (DriversModule), in this order.
 */
export const REGISTERED_DRIVERS: readonly RegisteredDriver[] = [
  SandboxGatewayAdapter,
  CashGatewayAdapter,
  MpgsDriver,
  KnetDriver,
  StripeDriver,
  RouterDriver,
];

/** The registered drivers, then `extra` (drivers an embedding or a test adds: `createApp(config, { drivers })`). */
export function registeredDrivers(extra: readonly RegisteredDriver[] = []): readonly RegisteredDriver[] {
  return [...REGISTERED_DRIVERS, ...extra];
}
