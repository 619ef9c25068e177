import { Get } from '@nestjs/common';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { AdminResource, ListDocs } from './admin-routes';
import { toGatewayDriverDto } from './admin.mapper';
import { GatewayDriverDto } from './dto/gateway-driver.dto';

/** The driver catalogue (contract §20): what a gateway's `pg` can name and the settings each takes. */
@AdminResource('gateway-drivers')
export class GatewayDriversAdminController {
  constructor(private readonly drivers: GatewayDrivers) {}

  @Get()
  @ListDocs(
    {
      summary: 'List the gateway drivers',
      description:
        "The drivers a gateway's `pg` can name, with the settings, operations and currencies of each.",
      operationId: 'adminListGatewayDrivers',
    },
    GatewayDriverDto,
  )
  list(): GatewayDriverDto[] {
    return this.drivers.list().map(toGatewayDriverDto);
  }
}
