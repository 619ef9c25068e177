import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../../database/columns';
import { LIMITS } from '../../common/validation/limits';

/** A secret API key: `<prefix>.<secret>`; only the prefix and a hash of the secret are stored. */
@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'varchar', length: LIMITS.apiKeyName })
  name: string;

  @Column({ type: 'varchar', length: 8, unique: true })
  prefix: string;

  /** SHA-256 (hex) of the secret part. The secret has 256 bits of entropy, so a fast hash is enough. */
  @Column({ name: 'secret_hash', type: 'varchar', length: 64 })
  secretHash: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @TimestampColumn({ name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
