import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, MoneyColumn, TimestampColumn } from '../database/columns';
import { LIMITS } from '../common/validation/limits';
import type { SettingValue } from './setting-value';

export const GATEWAY_TYPES = ['sandbox', 'production'] as const;

/** A test gateway: no real money moves (its payments and events say `is_sandbox`). */
export const isSandbox = (gateway: Pick<Gateway, 'type'>): boolean => gateway.type === 'sandbox';
export type GatewayType = (typeof GATEWAY_TYPES)[number];
export const GATEWAY_OPERATIONS = ['purchase', 'authorize'] as const;
export type GatewayOperation = (typeof GATEWAY_OPERATIONS)[number];
/**
 * How the customer pays: `redirect` to the gateway's payment page, or `offline` (cash, contract §16):
 * the page shows the merchant's instructions and the merchant acknowledges the money.
 */
export const GATEWAY_FLOWS = ['redirect', 'offline'] as const;
export type GatewayFlow = (typeof GATEWAY_FLOWS)[number];
/** The `pg` of cash gateways (contract §16): always flow `offline`. */
export const CASH_PG = 'cash';
export const isCash = (gateway: Pick<Gateway, 'pg'>): boolean => gateway.pg === CASH_PG;

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

  /** Can save cards for later charges (contract §15); sandbox gateways can. */
  @Column({ type: 'boolean', default: false })
  tokenizable: boolean;

  /** What the customer is told on the checkout page (cash: where and how to pay). */
  @Column({ type: 'varchar', length: LIMITS.gatewayInstructions, default: '' })
  instructions: string;

  /**
   * The driver's plain settings (contract §20 "Configuring a driver"); null: none. Read them
   * through GatewaySettings, which applies the driver's defaults.
   */
  @JsonColumn({ nullable: true })
  settings: Record<string, SettingValue> | null;

  /** The driver's secret settings, each encrypted (secrets-cipher.ts): name → `v1.<key id>.…`; null: none. */
  @JsonColumn({ nullable: true })
  secrets: Record<string, string> | null;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}
