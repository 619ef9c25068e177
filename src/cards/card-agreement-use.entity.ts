import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns';
import { LIMITS } from '../common/validation/limits';

/**
 * When a card was last used for an agreement (contract §15, `agreement_id` of the card list): saved
 * under it, or charged for a transaction whose `agreement.id` it is. One row per card and
 * agreement. The agreement is keyed by a SHA-256 of its exact id, so ids that differ only by
 * trailing spaces stay apart under MySQL's PAD SPACE collations (contract §3).
 */
@Entity({ name: 'card_agreement_uses' })
@Index('uq_card_agreement_uses_card_agreement', ['cardId', 'agreementHash'], { unique: true })
export class CardAgreementUse {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'card_id', type: 'bigint' })
  cardId: string;

  /** SHA-256 of the agreement id (UTF-8), hex: what lookups compare. */
  @Column({ name: 'agreement_hash', type: 'varchar', length: 64 })
  agreementHash: string;

  /** The agreement id as sent (for people reading the table). */
  @Column({ name: 'agreement_id', type: 'varchar', length: LIMITS.agreementId })
  agreementId: string;

  @TimestampColumn({ name: 'last_used_at' })
  lastUsedAt: Date;
}
