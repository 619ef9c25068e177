import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';
import { LIMITS } from '../common/validation/limits';

/** The single row (id = 1) of settings admins change at run time (contract §8 `config/`). */
@Entity({ name: 'admin_config' })
export class AdminConfig {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ name: 'auto_expire', type: 'boolean' })
  autoExpire: boolean;

  @Column({ name: 'default_redirect_url', type: 'varchar', length: LIMITS.url, nullable: true })
  defaultRedirectUrl: string | null;

  @Column({ name: 'merchant_name', type: 'varchar', length: LIMITS.merchantName })
  merchantName: string;

  /** HMAC key for webhook signatures; write-only through the API. Null: use WEBHOOK_SIGNING_KEY. */
  @Column({ name: 'webhook_signing_key', type: 'varchar', length: 255, nullable: true })
  webhookSigningKey: string | null;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}
