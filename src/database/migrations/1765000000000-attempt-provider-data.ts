import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * `payment_attempts.provider_data`: what a redirect provider keeps of an attempt that Checkout needs
 * later (contract §20): the provider's session id and its URL, the PaymentIntent or order id
 * learnt on return. JSON text; never secrets or card data.
 */
export class AttemptProviderData1765000000000 implements MigrationInterface {
  name = 'AttemptProviderData1765000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('payment_attempts', [s.textColumn('provider_data', { isNullable: true })]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('payment_attempts', 'provider_data');
  }
}
