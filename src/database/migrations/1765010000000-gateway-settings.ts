import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * Gateway drivers (contract §20): each gateway's `settings` and its encrypted `secrets` (JSON text,
 * null when none). A `pg` now names a driver; before, the sandbox adapter served every gateway of
 * type `sandbox` whatever its pg, so such a gateway whose pg is not `sandbox` or `cash` becomes
 * pg `sandbox`, the driver that served it (docs/decisions.md, "Gateways whose pg names no driver").
 */
export class GatewaySettings1765010000000 implements MigrationInterface {
  name = 'GatewaySettings1765010000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('gateways', [
      s.textColumn('settings', { isNullable: true }),
      s.textColumn('secrets', { isNullable: true }),
    ]);
    await q.query(
      `UPDATE gateways SET pg = 'sandbox' WHERE type = 'sandbox' AND pg NOT IN ('sandbox', 'cash')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('gateways', 'secrets');
    await q.dropColumn('gateways', 'settings');
  }
}
