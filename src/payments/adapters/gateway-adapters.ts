import { Inject, Injectable } from '@nestjs/common';
import type { Gateway } from '../../gateways/gateway.entity';
import { GATEWAY_ADAPTERS, type GatewayAdapter } from './gateway-adapter';

/** Picks the adapter for a gateway: the first registered one that serves it. */
@Injectable()
export class GatewayAdapters {
  constructor(@Inject(GATEWAY_ADAPTERS) private readonly adapters: GatewayAdapter[]) {}

  for(gateway: Gateway): GatewayAdapter | null {
    return this.adapters.find((a) => a.serves(gateway)) ?? null;
  }
}
