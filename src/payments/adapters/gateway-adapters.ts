import { Inject, Injectable } from '@nestjs/common';
import type { Gateway } from '../../gateways/gateway.entity';
import { DRIVER_SETTINGS, type DriverSettingsSource } from '../driver-settings';
import { GATEWAY_ADAPTERS, type DriverSettingsValues, type GatewayDriver } from './gateway-adapter';

/** A gateway's driver with the settings its calls carry. */
export interface BoundDriver {
  driver: GatewayDriver;
  settings: DriverSettingsValues;
}

/** Picks the driver for a gateway: the first registered one that serves it. */
@Injectable()
export class GatewayAdapters {
  constructor(
    @Inject(GATEWAY_ADAPTERS) private readonly adapters: GatewayDriver[],
    @Inject(DRIVER_SETTINGS) private readonly settings: DriverSettingsSource,
  ) {}

  for(gateway: Gateway): GatewayDriver | null {
    return this.adapters.find((a) => a.serves(gateway)) ?? null;
  }

  /** The gateway's driver and its settings; null when no driver serves it. */
  async bind(gateway: Gateway): Promise<BoundDriver | null> {
    const driver = this.for(gateway);
    return driver ? { driver, settings: await this.settings.of(gateway) } : null;
  }
}
