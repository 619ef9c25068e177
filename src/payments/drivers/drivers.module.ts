import { Global, Module, type DynamicModule, type ModuleMetadata, type Type } from '@nestjs/common';
import { DRIVER_CATALOGUE, type DriverCatalogueEntry } from '../../gateways/gateway-drivers';
import { GATEWAY_ADAPTERS, type GatewayDriver } from '../adapters/gateway-adapter';

/** A module a driver's constructor takes its dependencies from. */
export type DriverImport = NonNullable<ModuleMetadata['imports']>[number];

/**
 * A gateway driver as it is registered (contract §20): its class (the seam, {@link GatewayDriver}),
 * carrying its catalogue entry and the modules its dependencies come from as statics, the way a
 * medusa payment provider carries its identifier and options. See registered-drivers.ts.
 */
export interface RegisteredDriver extends Type<GatewayDriver> {
  /** What the drivers endpoint, the console and settings validation know of it (`<name>.catalogue.ts`). */
  readonly catalogue: DriverCatalogueEntry;
  /** The modules its constructor's dependencies come from, beside the global ones (config, database). */
  readonly imports?: readonly DriverImport[];
}

/**
 * Everything derived from the list of registered drivers, once, for the whole application: each
 * driver as a provider, `GATEWAY_ADAPTERS` (the drivers the pay path picks from, in the list's order)
 * and `DRIVER_CATALOGUE` (their entries, read by `GatewayDrivers` in `gateways/`, a lower layer that
 * never imports a driver). Global, so that the gateways module below and the payments module above
 * both see them; the composition root (`AppModule`) registers it once with the list.
 */
@Global()
@Module({})
export class DriversModule {
  static forRoot(drivers: readonly RegisteredDriver[]): DynamicModule {
    const imports = [...new Set(drivers.flatMap((driver) => driver.imports ?? []))];
    return {
      module: DriversModule,
      imports,
      providers: [
        ...drivers,
        {
          provide: GATEWAY_ADAPTERS,
          useFactory: (...built: GatewayDriver[]): GatewayDriver[] => {
            built.forEach((driver, i) => checkAgainstCatalogue(driver, drivers[i].catalogue));
            return built;
          },
          inject: [...drivers],
        },
        { provide: DRIVER_CATALOGUE, useValue: drivers.map((driver) => driver.catalogue) },
      ],
      exports: [...drivers, GATEWAY_ADAPTERS, DRIVER_CATALOGUE],
    };
  }
}

/** A driver whose class says another pg or flow than its catalogue entry is a mistake: refuse to start. */
function checkAgainstCatalogue(driver: GatewayDriver, entry: DriverCatalogueEntry): void {
  if (driver.name !== entry.pg || driver.flow !== entry.flow) {
    throw new Error(
      `Gateway driver ${driver.constructor.name} is "${driver.name}" (${driver.flow}) but its catalogue ` +
        `entry is "${entry.pg}" (${entry.flow})`,
    );
  }
}
