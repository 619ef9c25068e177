import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RouteDecision } from './route-decision.entity';
import { RouteDecisionsRepository } from './route-decisions.repository';
import { RouteHealth } from './route-health.entity';
import { RouteHealthRepository } from './route-health.repository';

/**
 * The data of routing gateways (contract §21): route decisions and route health, below the
 * transactions (which show the decisions) and the payments (which take them).
 */
@Module({
  imports: [TypeOrmModule.forFeature([RouteDecision, RouteHealth])],
  providers: [RouteDecisionsRepository, RouteHealthRepository],
  exports: [RouteDecisionsRepository, RouteHealthRepository],
})
export class RoutingModule {}
