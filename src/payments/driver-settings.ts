import { Injectable } from '@nestjs/common';
import type { Gateway } from '../gateways/gateway.entity';
import { GatewaySettings } from '../gateways/gateway-settings';
import type { DriverSettingsValues } from './adapters/gateway-adapter';

/** Where the pay path reads a gateway's driver settings (secrets decrypted, defaults applied). */
export interface DriverSettingsSource {
  of(gateway: Gateway): Promise<DriverSettingsValues>;
}

/** Injection token of the {@link DriverSettingsSource}. */
export const DRIVER_SETTINGS = Symbol('DRIVER_SETTINGS');

/**
 * The settings a gateway's driver is called with: the gateway's own ({@link GatewaySettings}: the
 * stored ones with secrets decrypted, then the driver's defaults). Throws when a secret was
 * encrypted under a key the service no longer has: the call fails before reaching the provider.
 */
@Injectable()
export class StoredDriverSettings implements DriverSettingsSource {
  constructor(private readonly settings: GatewaySettings) {}

  of(gateway: Gateway): Promise<DriverSettingsValues> {
    return Promise.resolve().then(() => this.settings.of(gateway));
  }
}
