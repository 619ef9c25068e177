import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';

/**
 * What a routing gateway did with a route (contract §21): `started` (the customer was sent to its
 * page), `unavailable` (starting there failed before the customer reached the provider: no money can
 * have moved, so the next route was tried), `skipped_unhealthy` (its circuit was open).
 */
export const ROUTE_OUTCOMES = ['started', 'unavailable', 'skipped_unhealthy'] as const;
export type RouteOutcome = (typeof ROUTE_OUTCOMES)[number];

/** One route decision of a transaction's payment, in the order they were taken. */
@Entity({ name: 'route_decisions' })
export class RouteDecision {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'transaction_id', type: 'bigint' })
  transactionId: string;

  /** The routing gateway (the transaction's `pg_codes`). */
  @Column({ name: 'router_code', type: 'varchar', length: 64 })
  routerCode: string;

  /** The member gateway the decision is about. */
  @Column({ name: 'gateway_code', type: 'varchar', length: 64 })
  gatewayCode: string;

  @Column({ type: 'varchar', length: 24 })
  outcome: RouteOutcome;

  /** The attempt started or refused on that route; null for a route skipped without an attempt. */
  @Column({ name: 'reference_number', type: 'varchar', length: 64, nullable: true })
  referenceNumber: string | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
