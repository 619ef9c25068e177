import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MoneyColumn, TimestampColumn } from '../../../database/columns';

/**
 * The sandbox gateway's own record of the captures, voids and refunds it carried out, by operation
 * key (as Stripe keeps an Idempotency-Key's first answer): the same key again reports the first
 * outcome and does nothing more (contract §20, GatewayDriver.followUp).
 */
@Entity({ name: 'sandbox_operations' })
export class SandboxOperation {
  @PrimaryColumn({ name: 'operation_key', type: 'varchar', length: 64 })
  operationKey: string;

  @Column({ type: 'varchar', length: 16 })
  operation: string;

  @Column({ name: 'reference_number', type: 'varchar', length: 64 })
  referenceNumber: string;

  @MoneyColumn()
  amount: string;

  @Column({ type: 'varchar', length: 16 })
  result: 'success' | 'failed';

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
