import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';

/**
 * A route's health, shared by every replica (contract §21): start failures in a row; while
 * `open_until` is ahead the route is skipped (its circuit is open), after it one trial start decides
 * (a success closes the circuit). `current_weight` is the route's running weight in the smooth
 * weighted round-robin of a `weighted` router.
 */
@Entity({ name: 'route_health' })
export class RouteHealth {
  @PrimaryColumn({ name: 'router_code', type: 'varchar', length: 64 })
  routerCode: string;

  @PrimaryColumn({ name: 'gateway_code', type: 'varchar', length: 64 })
  gatewayCode: string;

  @Column({ type: 'int', default: 0 })
  failures: number;

  @TimestampColumn({ name: 'open_until', nullable: true })
  openUntil: Date | null;

  @Column({ name: 'current_weight', type: 'int', default: 0 })
  currentWeight: number;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}
