import { Logger } from '@nestjs/common';
import type { Gateway } from '../../gateways/gateway.entity';

/**
 * What the drivers of real providers share (contract §20): they are named by their `pg`, serve the
 * gateways whose `pg` it is, send the customer to the provider's page (flow `redirect`), and log
 * under their own name (never a secret or card data: docs/gateways.md).
 */
export abstract class ProviderDriver {
  readonly flow = 'redirect';
  protected readonly logger: Logger;

  protected constructor(
    readonly name: string,
    loggerName: string,
  ) {
    this.logger = new Logger(loggerName);
  }

  serves(gateway: Gateway): boolean {
    return gateway.pg === this.name;
  }
}
