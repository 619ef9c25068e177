import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { dateParam } from '../../src/database/db-values';

export type GatewayResult = 'success' | 'declined' | 'error';

export interface CrashedAttempt {
  /** What the sandbox gateway recorded (null: the request never reached it). */
  gatewaySaw: GatewayResult | null;
  /** The answer as stored on the attempt before the crash (null: still `pending`). */
  stored: GatewayResult | null;
  ageSeconds: number;
}

const RESPONSE_CODES: Record<GatewayResult, string> = { success: '00', declined: '05', error: '96' };

/**
 * The rows a replica leaves behind when it dies in the middle of a payment (contract §17): the
 * transaction claimed by the attempt, the attempt written, maybe the gateway's own record, maybe
 * the answer stored — but the transaction never settled. Returns the attempt's reference number.
 */
export async function leaveCrashedAttempt(
  ds: DataSource,
  sessionId: string,
  crash: CrashedAttempt,
): Promise<string> {
  const reference = randomBytes(10).toString('hex').toUpperCase();
  const startedAt = new Date(Date.now() - crash.ageSeconds * 1000);
  const [tx] = await ds.query<{ id: string | number; amount: string; currency_code: string }[]>(
    'SELECT id, amount, currency_code FROM transactions WHERE session_id = ?',
    [sessionId],
  );
  await ds.query('UPDATE transactions SET attempt_in_flight = ? WHERE id = ?', [reference, tx.id]);
  await ds.query(
    `INSERT INTO payment_attempts
       (transaction_id, reference_number, pg_code, result, response_code, amount, currency_code,
        created_at, completed_at, settled_at)
     VALUES (?, ?, 'sandbox', ?, ?, ?, ?, ?, ?, NULL)`,
    [
      tx.id,
      reference,
      crash.stored ?? 'pending',
      crash.stored ? RESPONSE_CODES[crash.stored] : '',
      String(tx.amount),
      tx.currency_code,
      dateParam(ds, startedAt),
      crash.stored ? dateParam(ds, startedAt) : null,
    ],
  );
  if (crash.gatewaySaw) {
    await ds.query(
      `INSERT INTO sandbox_charges (reference_number, result, response_code, amount, currency_code, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [
        reference,
        crash.gatewaySaw,
        RESPONSE_CODES[crash.gatewaySaw],
        String(tx.amount),
        tx.currency_code,
        dateParam(ds, startedAt),
      ],
    );
  }
  return reference;
}
