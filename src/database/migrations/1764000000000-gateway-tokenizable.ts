import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/** Gateways that can save cards (contract §15): `tokenizable`, on for the sandbox gateways already there. */
export class GatewayTokenizable1764000000000 implements MigrationInterface {
  name = 'GatewayTokenizable1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('gateways', [s.flag('tokenizable', { default: 0 })]);
    await q.query(`UPDATE gateways SET tokenizable = 1 WHERE type = 'sandbox'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('gateways', 'tokenizable');
  }
}
