import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { migratedUpTo } from '../setup/migrations';
import { createTestDatabase, testDbKind } from '../setup/test-database';

const LAST_USED = '1764900000000';

/** A stored timestamp as ISO text, whichever way the driver hands it back. */
const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : new Date(`${String(value).replace(' ', 'T')}Z`).toISOString();

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe(`migration ${LAST_USED}: saved cards get last_used_at and agreement uses (${testDbKind()})`, () => {
  it('dates each card by its last save or later charge, and each agreement it was saved under', async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      const before = await migratedUpTo(db.env, LAST_USED).initialize();
      await before.runMigrations();
      const cards: [string, string, string][] = [
        ['tok-1', '2026-11-20 10:00:00.000', '["plan-a"]'],
        ['tok-2', '2026-11-20 11:00:00.000', '[]'],
        ['tok-3', '2026-11-20 09:00:00.000', '["plan-a","plan b "]'],
      ];
      for (const [token, updatedAt, agreements] of cards) {
        await before.query(
          `INSERT INTO cards (token, customer_id, pg_code, brand, name_on_card, last4, expiry_month, expiry_year,
             fingerprint, gateway_token, agreements, is_preferred, created_at, updated_at)
           VALUES (?, 'cust-m', 'sandbox', 'Visa', 'Jane Doe', '1111', 12, 2039, ?, 'sbx_x', ?, 0, ?, ?)`,
          [token, `fp-${token}`, agreements, '2026-11-19 08:00:00.000', updatedAt],
        );
      }
      // Attempts that charged saved cards: tok-1 after its save (twice), tok-3 before its last save;
      // one that saved a typed card (no token).
      const attempts: [string, string | null, string][] = [
        ['R1', 'tok-1', '2026-11-20 11:30:00.000'],
        ['R2', 'tok-1', '2026-11-20 12:00:00.000'],
        ['R3', 'tok-3', '2026-11-20 08:00:00.000'],
        ['R4', null, '2026-11-20 13:00:00.000'],
      ];
      for (const [reference, token, createdAt] of attempts) {
        const card = {
          brand: 'Visa',
          last4: '1111',
          expiryMonth: 12,
          expiryYear: 2039,
          nameOnCard: 'Jane Doe',
          save: token === null,
          ...(token ? { savedCardToken: token } : {}),
        };
        await before.query(
          `INSERT INTO payment_attempts (transaction_id, reference_number, pg_code, result, response_code, amount,
             currency_code, created_at, card)
           VALUES (1, ?, 'sandbox', 'success', '00', '1.000', 'KWD', ?, ?)`,
          [reference, createdAt, JSON.stringify(card)],
        );
      }
      await before.destroy();

      const after = await migratedUpTo(db.env).initialize();
      try {
        await after.runMigrations();
        const rows = await after.query<{ id: number | string; token: string; last_used_at: unknown }[]>(
          'SELECT id, token, last_used_at FROM cards ORDER BY token',
        );
        assert.deepEqual(
          rows.map((r) => [r.token, iso(r.last_used_at)]),
          [
            ['tok-1', '2026-11-20T12:00:00.000Z'],
            ['tok-2', '2026-11-20T11:00:00.000Z'],
            ['tok-3', '2026-11-20T09:00:00.000Z'],
          ],
        );
        const tokenOf = new Map(rows.map((r) => [String(r.id), r.token]));
        const uses = await after.query<
          { card_id: number | string; agreement_hash: string; agreement_id: string; last_used_at: unknown }[]
        >('SELECT card_id, agreement_hash, agreement_id, last_used_at FROM card_agreement_uses');
        assert.deepEqual(
          uses
            .map((u) => [
              tokenOf.get(String(u.card_id)),
              u.agreement_id,
              u.agreement_hash === sha256(u.agreement_id),
              iso(u.last_used_at),
            ])
            .sort((a, b) => String(a).localeCompare(String(b))),
          [
            ['tok-1', 'plan-a', true, '2026-11-20T10:00:00.000Z'],
            ['tok-3', 'plan b ', true, '2026-11-20T09:00:00.000Z'],
            ['tok-3', 'plan-a', true, '2026-11-20T09:00:00.000Z'],
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
