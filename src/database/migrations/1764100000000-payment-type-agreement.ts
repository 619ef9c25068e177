import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** Saved cards (contract §15): a transaction's `payment_type` (one_off for those already there) and `agreement`. */
export class PaymentTypeAgreement1764100000000 implements MigrationInterface {
  name = 'PaymentTypeAgreement1764100000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('transactions', [
      s.varchar('payment_type', 16, { default: "'one_off'" }),
      s.textColumn('agreement', { isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('transactions', 'agreement');
    await q.dropColumn('transactions', 'payment_type');
  }
}
