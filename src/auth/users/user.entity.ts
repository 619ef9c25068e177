import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, TimestampColumn } from '../../database/columns';
import { LIMITS } from '../../common/validation/limits';

/** A Basic-auth user: a merchant back-office login limited to some gateway codes, or an admin. */
@Entity({ name: 'users' })
export class User {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ type: 'varchar', length: LIMITS.username, unique: true })
  username: string;

  /** scrypt hash in the `scrypt$N$r$p$salt$hash` form; never the password. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash: string;

  @JsonColumn({ name: 'gateway_codes' })
  gatewayCodes: string[];

  @Column({ name: 'is_admin', type: 'boolean' })
  isAdmin: boolean;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive: boolean;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;
}
