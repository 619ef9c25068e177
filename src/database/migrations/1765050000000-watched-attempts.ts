import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * Money taken is always recorded (contract §20.1):
 * - `payment_attempts.left_at`: the customer left the attempt (a cancel or error link, a decline the
 *   provider's page lets them retry) while its provider session may still take money; it no longer
 *   holds the transaction, and the reconciler keeps asking about it until the provider's word is
 *   final (`settled_at`).
 * - `payment_attempts.reconciliation`: how the attempt ended against its transaction, once settled:
 *   `matched`, or `mismatch` (the provider took money our transaction does not show, or the
 *   reverse): the reconciliation report and its metric read it.
 * - `transactions.watched_until`: a transaction whose customer left a provider session that may
 *   still take money is not expired before the provider's session ends (its `payable_until`).
 */
export class WatchedAttempts1765050000000 implements MigrationInterface {
  name = 'WatchedAttempts1765050000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('payment_attempts', [
      s.timestamp('left_at', { isNullable: true }),
      s.varchar('reconciliation', 16, { isNullable: true }),
    ]);
    await s.addColumns('transactions', [s.timestamp('watched_until', { isNullable: true })]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('transactions', 'watched_until');
    await q.dropColumn('payment_attempts', 'reconciliation');
    await q.dropColumn('payment_attempts', 'left_at');
  }
}
