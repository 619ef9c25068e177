import { Injectable } from '@nestjs/common';
import type { Gateway } from '../gateways/gateway.entity';
import type { DriverSettingsValues } from './adapters/gateway-adapter';

/** Where the pay path reads a gateway's driver settings (secrets decrypted, defaults applied). */
export interface DriverSettingsSource {
  of(gateway: Gateway): Promise<DriverSettingsValues>;
}

/** Injection token of the {@link DriverSettingsSource}. */
export const DRIVER_SETTINGS = Symbol('DRIVER_SETTINGS');

/**
 * The source of driver settings until gateways keep their own: none (the sandbox and cash drivers
 * need none). Bound to DRIVER_SETTINGS in PaymentsModule; `GatewaySettings` (src/gateways/) takes
 * its place once gateways store `settings`.
 */
@Injectable()
export class NoDriverSettings implements DriverSettingsSource {
  of(_gateway: Gateway): Promise<DriverSettingsValues> {
    return Promise.resolve({});
  }
}
