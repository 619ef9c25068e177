import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../../database/columns';
import type { AttemptOutcome } from '../../adapters/gateway-adapter';

/**
 * The sandbox gateway's vault: each card it tokenized and how charges with that token behave —
 * as the test card it was saved from does (contract §15). Never the card number.
 */
@Entity({ name: 'sandbox_tokens' })
export class SandboxToken {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  token: string;

  /** What a later charge with this token answers. */
  @Column({ name: 'later_result', type: 'varchar', length: 16 })
  laterResult: AttemptOutcome['result'];

  @TimestampColumn({ name: 'created_at' })
  createdAt: Date;
}
