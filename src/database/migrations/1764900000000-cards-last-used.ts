import { createHash } from 'node:crypto';
import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { Schema } from '../migration-schema';

/**
 * Saved cards listed most recently used first (contract §15): `cards.last_used_at`, and when each
 * card was last used for an agreement (`card_agreement_uses`, for the list's `agreement_id`).
 *
 * Cards already there were last used when last saved (`updated_at`), or later when an attempt
 * charged them with their token (a page payment or an auto-debit); a card saved under agreements
 * was last used for each of them when it was last saved.
 */
export class CardsLastUsed1764900000000 implements MigrationInterface {
  name = 'CardsLastUsed1764900000000';

  async up(q: QueryRunner): Promise<void> {
    const s = new Schema(q);
    await s.addColumns('cards', [s.timestamp('last_used_at', { isNullable: true })]);
    await q.query('UPDATE cards SET last_used_at = updated_at');
    await q.query(
      s.mysql
        ? `UPDATE cards c JOIN (
             SELECT JSON_UNQUOTE(JSON_EXTRACT(card, '$.savedCardToken')) AS token, MAX(created_at) AS used
             FROM payment_attempts WHERE card LIKE '%"savedCardToken"%' GROUP BY 1
           ) u ON u.token = c.token
           SET c.last_used_at = u.used WHERE u.used > c.last_used_at`
        : `UPDATE cards SET last_used_at = u.used FROM (
             SELECT json_extract(card, '$.savedCardToken') AS token, MAX(created_at) AS used
             FROM payment_attempts WHERE card LIKE '%"savedCardToken"%' GROUP BY 1
           ) AS u
           WHERE u.token = cards.token AND u.used > cards.last_used_at`,
    );
    const table = await q.getTable('cards');
    await q.changeColumn(
      'cards',
      table!.findColumnByName('last_used_at')!,
      new TableColumn(s.timestamp('last_used_at')),
    );

    await s.createTable(
      'card_agreement_uses',
      [
        s.id(),
        s.bigint('card_id'),
        s.varchar('agreement_hash', 64),
        s.varchar('agreement_id', 128),
        s.timestamp('last_used_at'),
      ],
      { unique: { uq_card_agreement_uses_card_agreement: ['card_id', 'agreement_hash'] } },
    );
    const saved = (await q.query(`SELECT id, agreements FROM cards WHERE agreements <> '[]'`)) as {
      id: number | string;
      agreements: string;
    }[];
    for (const card of saved) {
      const ids = new Set(JSON.parse(card.agreements) as string[]);
      for (const agreementId of ids) {
        const hash = createHash('sha256').update(agreementId, 'utf8').digest('hex');
        await q.query(
          `INSERT INTO card_agreement_uses (card_id, agreement_hash, agreement_id, last_used_at)
           SELECT id, ?, ?, updated_at FROM cards WHERE id = ?`,
          [hash, agreementId, card.id],
        );
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('card_agreement_uses');
    await q.dropColumn('cards', 'last_used_at');
  }
}
