import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TRACKING_KEY_ROUTE } from '../../src/operations/operations.service';
import { migratedUpTo } from '../setup/migrations';
import { createTestDatabase, testDbKind } from '../setup/test-database';

const MOVE = '1763900000000';

describe(`migration ${MOVE}: Tracking-Key results move into idempotency_keys (${testDbKind()})`, () => {
  it('copies finished results with their fingerprint and body, drops running claims and the table', async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      const before = await migratedUpTo(db.env, MOVE).initialize();
      await before.runMigrations();
      await before.query(
        `INSERT INTO operation_results (scope, tracking_key, request_hash, status_code, body, created_at, completed_at)
         VALUES ('key:1', 'refund-42', 'abc', 200, '{"result":"success"}', ?, ?),
                ('key:1', 'still-running', 'def', NULL, NULL, ?, NULL)`,
        ['2026-11-24 10:00:00.000', '2026-11-24 10:00:01.000', '2026-11-24 10:00:02.000'],
      );
      await before.destroy();

      const after = await migratedUpTo(db.env).initialize();
      try {
        await after.runMigrations();
        const rows = await after.query<Record<string, unknown>[]>(
          `SELECT scope, idempotency_key, route, fingerprint, status, response_status, response_headers, response_body
           FROM idempotency_keys ORDER BY id`,
        );
        assert.deepEqual(
          rows.map((r) => ({ ...r, response_status: Number(r.response_status) })),
          [
            {
              scope: 'key:1',
              idempotency_key: 'refund-42',
              route: TRACKING_KEY_ROUTE,
              fingerprint: 'abc',
              status: 'done',
              response_status: 200,
              response_headers: '{}',
              response_body: '{"result":"success"}',
            },
          ],
        );
        const left = await after.createQueryRunner().hasTable('operation_results');
        assert.equal(left, false);
      } finally {
        await after.destroy();
      }
    } finally {
      await db.drop();
    }
  });
});
