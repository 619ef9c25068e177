import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** Cash gateways (contract §16): the instructions the payment page shows the customer. */
export class GatewayInstructions1764400000000 implements MigrationInterface {
  name = 'GatewayInstructions1764400000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('gateways', [s.varchar('instructions', 1000, { default: "''" })]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('gateways', 'instructions');
  }
}
