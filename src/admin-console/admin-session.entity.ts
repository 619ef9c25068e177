import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';

/**
 * A signed-in admin console session (contract §19). Kept in the database so every replica knows it
 * and "Sign out" ends it everywhere; only a hash of the cookie's token is stored.
 */
@Entity({ name: 'admin_sessions' })
@Index('idx_admin_sessions_last_seen_at', ['lastSeenAt'])
export class AdminSession {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** SHA-256 (hex) of the cookie's random token. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  /** The session's CSRF token: every form of the console carries it. */
  @Column({ name: 'csrf_token', type: 'varchar', length: 64 })
  csrfToken: string;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  /** Moved on by use (at most once a minute); idle past the timeout → signed out. */
  @TimestampColumn({ name: 'last_seen_at' })
  lastSeenAt: Date;
}
