import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migratedUpTo } from '../setup/migrations';
import { createTestDatabase, testDbKind } from '../setup/test-database';

const SETTINGS = '1765010000000';

describe(`migration ${SETTINGS}: gateway settings; a pg names a driver (${testDbKind()})`, () => {
  it('gives sandbox gateways whose pg named no driver pg "sandbox", keeps the others, adds empty settings', async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      const before = await migratedUpTo(db.env, SETTINGS).initialize();
      await before.runMigrations();
      for (const [code, pg, type] of [
        ['sandbox', 'sandbox', 'sandbox'],
        ['knet-test', 'knet', 'sandbox'], // "a sandbox gateway called knet": the sandbox adapter served it
        ['mybank-test', 'mybank', 'sandbox'],
        ['cash', 'cash', 'sandbox'],
        ['knet-live', 'knet', 'production'],
        ['mybank-live', 'mybank', 'production'],
      ]) {
        await before.query(
          `INSERT INTO gateways (code, name, pg, type, operation, currencies, fee_fixed, fee_percent, icon, flow,
             require_customer_phone, is_active, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'purchase', '["KWD"]', '0', '0', '', 'redirect', 0, 1, ?, ?)`,
          [code, code, pg, type, '2026-11-25 10:00:00.000', '2026-11-25 10:00:00.000'],
        );
      }
      await before.destroy();
      const after = await migratedUpTo(db.env).initialize();
      try {
        await after.runMigrations();
        const rows = await after.query<{ code: string; pg: string; settings: null; secrets: null }[]>(
          'SELECT code, pg, settings, secrets FROM gateways ORDER BY code',
        );
        assert.deepEqual(
          rows.map((r) => [r.code, r.pg, r.settings, r.secrets]),
          [
            ['cash', 'cash', null, null],
            ['knet-live', 'knet', null, null],
            ['knet-test', 'sandbox', null, null],
            ['mybank-live', 'mybank', null, null],
            ['mybank-test', 'sandbox', null, null],
            ['sandbox', 'sandbox', null, null],
          ],
        );
      } finally {
        await after.destroy();
      }
    } finally {
      await db.drop();
    }
  });
});
