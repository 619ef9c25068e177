import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Gateway } from './gateway.entity';
import { GatewaysService } from './gateways.service';

@Module({
  imports: [TypeOrmModule.forFeature([Gateway])],
  providers: [GatewaysService],
  exports: [GatewaysService],
})
export class GatewaysModule {}
