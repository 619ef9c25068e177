import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { JsonColumn, TimestampColumn } from '../database/columns';
import { LIMITS } from '../common/validation/limits';

/**
 * A saved card (contract §15): what may be kept of it — brand, last four digits, expiry, name — and
 * the gateway's own token to charge it. Never the number, never the CVC. `fingerprint` is a keyed
 * hash of the number (see CardFingerprints) so the same card saved again stays one card.
 */
@Entity({ name: 'cards' })
@Index('uq_cards_customer_gateway_fingerprint', ['customerId', 'pgCode', 'fingerprint'], { unique: true })
export class Card {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** Ours, public: random (CSPRNG), never derived from the number. */
  @Column({ type: 'varchar', length: 64, unique: true })
  token: string;

  @Column({ name: 'customer_id', type: 'varchar', length: LIMITS.customerId })
  customerId: string;

  @Column({ name: 'pg_code', type: 'varchar', length: LIMITS.gatewayCode })
  pgCode: string;

  @Column({ type: 'varchar', length: 32 })
  brand: string;

  @Column({ name: 'name_on_card', type: 'varchar', length: 64 })
  nameOnCard: string;

  @Column({ type: 'varchar', length: 4 })
  last4: string;

  @Column({ name: 'expiry_month', type: 'int' })
  expiryMonth: number;

  @Column({ name: 'expiry_year', type: 'int' })
  expiryYear: number;

  /** HMAC-SHA256 of the number under the fingerprint key, hex. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  /** The gateway's token for this card (what the adapter charges). */
  @Column({ name: 'gateway_token', type: 'varchar', length: 128 })
  gatewayToken: string;

  /** Ids of the agreements (contract §15) this card was saved under. */
  @JsonColumn()
  agreements: string[];

  @Column({ name: 'is_preferred', type: 'boolean' })
  isPreferred: boolean;

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;

  @TimestampColumn({ name: 'updated_at' })
  updatedAt: Date;

  /**
   * When the card was last used: saved, saved again, or charged (a page payment with it, or an
   * auto-debit; set when the attempt is made, whatever its result). Lists put the most recently
   * used card first (contract §15).
   */
  @TimestampColumn({ name: 'last_used_at' })
  lastUsedAt: Date;
}
