import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migratedUpTo } from '../setup/migrations';
import { createTestDatabase, testDbKind } from '../setup/test-database';

const TOKENIZABLE = '1764000000000';

describe(`migration ${TOKENIZABLE}: gateways get tokenizable, on for sandbox ones (${testDbKind()})`, () => {
  it('turns it on for the sandbox gateways already there and off for the others', async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      const before = await migratedUpTo(db.env, TOKENIZABLE).initialize();
      await before.runMigrations();
      for (const [code, type] of [
        ['sandbox', 'sandbox'],
        ['knet', 'production'],
      ]) {
        await before.query(
          `INSERT INTO gateways (code, name, pg, type, operation, currencies, fee_fixed, fee_percent, icon, flow,
             require_customer_phone, is_active, created_at, updated_at)
           VALUES (?, ?, 'sandbox', ?, 'purchase', '["KWD"]', '0', '0', '', 'redirect', 0, 1, ?, ?)`,
          [code, code, type, '2026-11-24 10:00:00.000', '2026-11-24 10:00:00.000'],
        );
      }
      await before.destroy();
      const after = await migratedUpTo(db.env).initialize();
      try {
        await after.runMigrations();
        const rows = await after.query<{ code: string; tokenizable: number | boolean }[]>(
          'SELECT code, tokenizable FROM gateways ORDER BY code',
        );
        assert.deepEqual(
          rows.map((r) => [r.code, Boolean(Number(r.tokenizable))]),
          [
            ['knet', false],
            ['sandbox', true],
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
