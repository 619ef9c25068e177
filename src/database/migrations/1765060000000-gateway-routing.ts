import { MigrationInterface, QueryRunner } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * Routing across gateways (docs/contract.md §21, docs/routing.md):
 * - `route_decisions`: what a routing gateway did with each route while choosing one for a
 *   transaction (`started`, `unavailable`, `skipped_unhealthy`), in order: retrieve and webhooks
 *   show them as `routing`.
 * - `route_health`: each route's health, shared by every replica: start failures in a row, until
 *   when its circuit is open, and its current weight of the smooth weighted round-robin.
 * - `transactions.gateway_code`: the gateway that took the payment (a routing gateway's member;
 *   the transaction's own gateway otherwise); capture, void and refund go there. Transactions paid
 *   before it existed take their own gateway.
 */
export class GatewayRouting1765060000000 implements MigrationInterface {
  name = 'GatewayRouting1765060000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.createTable(
      'route_decisions',
      [
        s.id(),
        s.bigint('transaction_id'),
        s.varchar('router_code', 64),
        s.varchar('gateway_code', 64),
        s.varchar('outcome', 24),
        s.varchar('reference_number', 64, { isNullable: true }),
        s.timestamp('created_at'),
      ],
      { index: { idx_route_decisions_transaction_id: ['transaction_id', 'id'] } },
    );
    await s.createTable('route_health', [
      s.varchar('router_code', 64, { isPrimary: true }),
      s.varchar('gateway_code', 64, { isPrimary: true }),
      s.int('failures', { default: 0 }),
      s.timestamp('open_until', { isNullable: true }),
      s.int('current_weight', { default: 0 }),
      s.timestamp('updated_at'),
    ]);
    await s.addColumns('transactions', [s.varchar('gateway_code', 64, { isNullable: true })]);
    await q.query(
      `UPDATE transactions SET gateway_code = pg_code WHERE state IN ('paid', 'authorized', 'captured', 'voided', 'refunded')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('transactions', 'gateway_code');
    await q.dropTable('route_health');
    await q.dropTable('route_decisions');
  }
}
