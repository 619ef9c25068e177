import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayDrivers } from './gateway-drivers';
import { GatewaySettings } from './gateway-settings';
import { Gateway } from './gateway.entity';
import { GatewaysService } from './gateways.service';
import { SecretsCipher } from './secrets-cipher';

@Module({
  imports: [TypeOrmModule.forFeature([Gateway])],
  providers: [GatewaysService, GatewayDrivers, GatewaySettings, SecretsCipher],
  exports: [GatewaysService, GatewayDrivers, GatewaySettings],
})
export class GatewaysModule {}
