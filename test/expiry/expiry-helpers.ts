import type { DataSource } from 'typeorm';
import { dateParam } from '../../src/database/db-values';
import { ExpiryService, type SweepResult } from '../../src/expiry/expiry.service';
import type { TestApp } from '../setup/test-app';
import { adminAuth } from '../setup/fixtures';

/** Sweeps every second, as the tests ask. */
export const FAST_SWEEP_ENV: Record<string, string> = { EXPIRY_SWEEP_SECONDS: '1' };

/**
 * The admin toggle: what `PATCH /b/checkout/v1/admin/config/ {"auto_expire": …}` stores (the admin
 * controller calls this same service method).
 */
/** Flips the admin toggle through the admin API, as an admin would (contract §8 `config/`). */
export async function setAutoExpire(t: TestApp, on: boolean): Promise<void> {
  const res = await t
    .http()
    .patch('/b/checkout/v1/admin/config/')
    .set('Authorization', adminAuth())
    .send({ auto_expire: on });
  if (res.status !== 200 || (res.body as { auto_expire?: unknown }).auto_expire !== on) {
    throw new Error(`PATCH admin/config answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
}

export const expiryOf = (t: TestApp): ExpiryService => t.app.get(ExpiryService);

/**
 * The result of the scheduled job's next run on this app: resolves once a call of
 * `ExpiryService.runScheduled` (the job's tick) that starts after this call has ended. The job's
 * runs never overlap, so by then every run that started earlier has ended too. Fails after
 * `timeoutMs` (the job ticks every EXPIRY_SWEEP_SECONDS). Nothing else may call `runScheduled`
 * meanwhile (it would be taken for the job's run).
 */
export function nextScheduledRun(t: TestApp, timeoutMs = 10_000): Promise<SweepResult | null> {
  const expiry = expiryOf(t);
  const own = expiry as { runScheduled: ExpiryService['runScheduled'] };
  const restore = () => Reflect.deleteProperty(own, 'runScheduled'); // the prototype's method again
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      restore();
      reject(new Error(`the expiry job did not run within ${timeoutMs} ms`));
    }, timeoutMs);
    own.runScheduled = () => {
      restore();
      clearTimeout(timer);
      const run = ExpiryService.prototype.runScheduled.call(expiry);
      run.then(resolve, reject);
      return run;
    };
  });
}

/** Per transaction id: how many `expired` events it has. */
export async function expiredEventCounts(ds: DataSource): Promise<Map<string, number>> {
  const rows = await ds.query<{ transaction_id: string | number; n: string | number }[]>(
    `SELECT transaction_id, COUNT(*) AS n FROM events WHERE event = 'expired' GROUP BY transaction_id`,
  );
  return new Map(rows.map((r) => [String(r.transaction_id), Number(r.n)]));
}

/** Transactions per state. */
export async function stateCounts(ds: DataSource): Promise<Record<string, number>> {
  const rows = await ds.query<{ state: string; n: string | number }[]>(
    `SELECT state, COUNT(*) AS n FROM transactions GROUP BY state`,
  );
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

/** Ids of the transactions in `state`. */
export async function idsInState(ds: DataSource, state: string): Promise<string[]> {
  const rows = await ds.query<{ id: string | number }[]>(`SELECT id FROM transactions WHERE state = ?`, [
    state,
  ]);
  return rows.map((r) => String(r.id));
}

/** Moves a transaction's deadline (as if it had been created earlier). */
export async function setDeadline(ds: DataSource, sessionId: string, expiresAt: Date): Promise<void> {
  await ds.query(`UPDATE transactions SET expires_at = ? WHERE session_id = ?`, [
    dateParam(ds, expiresAt),
    sessionId,
  ]);
}
