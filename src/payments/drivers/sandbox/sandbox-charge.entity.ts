import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MoneyColumn, TimestampColumn } from '../../../database/columns';

/**
 * The sandbox gateway's own record of what it was asked to charge (a real gateway keeps one on its
 * side), so that `inquire` can answer for an attempt whose answer never reached us (contract §17).
 */
@Entity({ name: 'sandbox_charges' })
export class SandboxCharge {
  @PrimaryColumn({ name: 'reference_number', type: 'varchar', length: 64 })
  referenceNumber: string;

  @Column({ type: 'varchar', length: 16 })
  result: 'success' | 'declined' | 'error';

  @Column({ name: 'response_code', type: 'varchar', length: 32 })
  responseCode: string;

  /** The token issued with this charge, when the card was saved. */
  @Column({ name: 'gateway_token', type: 'varchar', length: 128, nullable: true })
  gatewayToken: string | null;

  @MoneyColumn()
  amount: string;

  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
