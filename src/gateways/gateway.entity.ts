import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, MoneyColumn, TimestampColumn } from '../database/columns';
import { LIMITS } from '../common/validation/limits';

export const GATEWAY_TYPES = ['sandbox', 'production'] as const;

/** A test gateway: no real money moves (its payments and events say `is_sandbox`). */
export const isSandbox = (gateway: Pick<Gateway, 'type'>): boolean => gateway.type === 'sandbox';
export type GatewayType = (typeof GATEWAY_TYPES)[number];
export const GATEWAY_OPERATIONS = ['purchase', 'authorize'] as const;
export type GatewayOperation = (typeof GATEWAY_OPERATIONS)[number];
export const GATEWAY_FLOWS = ['redirect'] as const;
export type GatewayFlow = (typeof GATEWAY_FLOWS)[number];

/** A payment gateway settings instance ("pg code") that transactions are paid through. */
@Entity({ name: 'gateways' })
export class Gateway {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'varchar', length: LIMITS.gatewayCode, unique: true })
  code: string;

  @Column({ type: 'varchar', length: LIMITS.gatewayName })
  name: string;

  @Column({ type: 'varchar', length: 64 })
  pg: string;

  @Column({ type: 'varchar', length: 16 })
  type: GatewayType;

  @Column({ type: 'varchar', length: 16 })
  operation: GatewayOperation;

  /** Currency codes this gateway accepts. */
  @JsonColumn()
  currencies: string[];

  @MoneyColumn({ name: 'fee_fixed' })
  feeFixed: string;

  @MoneyColumn({ name: 'fee_percent' })
  feePercent: string;

  @Column({ type: 'varchar', length: LIMITS.url })
  icon: string;

  @Column({ type: 'varchar', length: 16 })
  flow: GatewayFlow;

  @Column({ name: 'require_customer_phone', type: 'boolean' })
  requireCustomerPhone: boolean;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive: boolean;

  /** Can save cards for later charges (SPEC §15); sandbox gateways can. */
  @Column({ type: 'boolean', default: false })
  tokenizable: boolean;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}
