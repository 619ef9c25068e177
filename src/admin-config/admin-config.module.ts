import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminConfig } from './admin-config.entity';
import { AdminConfigService } from './admin-config.service';

@Module({
  imports: [TypeOrmModule.forFeature([AdminConfig])],
  providers: [AdminConfigService],
  exports: [AdminConfigService],
})
export class AdminConfigModule {}
