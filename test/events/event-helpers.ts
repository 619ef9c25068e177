import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { UnitOfWork } from '../../src/database/unit-of-work';
import type { EventName } from '../../src/events/event-types';
import type { EventDetails } from '../../src/transactions/events/event-payload';
import { TransactionEvents } from '../../src/transactions/events/transaction-events';
import { Transaction } from '../../src/transactions/transaction.entity';
import type { TransactionState } from '../../src/transactions/transaction-state';
import { transactionBody } from '../factories/transaction.factory';
import { adminAuth, Seeded } from '../setup/fixtures';
import type { TestApp } from '../setup/test-app';

export const SIGNING_KEY = 'whsec-pu9MpX3yPR-2026';

/** Env of an app that delivers quickly to receivers on 127.0.0.1. */
export const FAST_DELIVERY_ENV: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_SIGNING_KEY: SIGNING_KEY,
  WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
  WEBHOOK_TIMEOUT_MS: '2000',
  DISPATCH_INTERVAL_MS: '50',
  DISPATCH_LEASE_MS: '3000',
};

export const dataSourceOf = (t: TestApp): DataSource => t.app.get<DataSource>(getDataSourceToken());
/** The app's unit of work: the only way to open a DB transaction (contract §17). */
export const unitOf = (t: TestApp): UnitOfWork => t.app.get(UnitOfWork);

/** Creates a transaction over the API; returns its session id. */
export async function createTransaction(
  t: TestApp,
  s: Seeded,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await t
    .http()
    .post('/b/checkout/v1/pymt-txn/')
    .set('Authorization', s.apiKey)
    .send(transactionBody(overrides));
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return String((res.body as { session_id: string }).session_id);
}

/**
 * What the state machine does on a transition: changes the state and records its event in one DB
 * transaction (the transitions themselves belong to another module).
 */
export async function transition(
  t: TestApp,
  sessionId: string,
  state: TransactionState,
  event: EventName,
  details: EventDetails = {},
  changes: Partial<Transaction> = {},
): Promise<void> {
  await unitOf(t).run(async (manager) => {
    const repo = manager.getRepository(Transaction);
    const tx = await repo.findOneByOrFail({ sessionId });
    Object.assign(tx, { state, ...changes, version: tx.version + 1, updatedAt: new Date() });
    await repo.update({ id: tx.id }, {
      state,
      ...changes,
      version: tx.version,
      updatedAt: tx.updatedAt,
    } as never);
    await t.app.get(TransactionEvents).record(manager, tx, event, details);
  });
}

export interface AdminDelivery {
  id: number;
  channel: string;
  target: string;
  status: string;
  attempts: number;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: {
    attempted_at: string;
    status_code: number | null;
    duration_ms: number;
    error: string | null;
    response_body: string | null;
  }[];
}
export interface AdminEvent {
  event_id: string;
  event: string;
  sequence: number;
  created_at: string;
  deliveries: AdminDelivery[];
}

/** The admin API's list of a transaction's events. */
export async function adminEvents(t: TestApp, sessionId: string): Promise<AdminEvent[]> {
  const res = await t
    .http()
    .get(`/b/checkout/v1/admin/pymt-txn/${sessionId}/events/`)
    .set('Authorization', adminAuth());
  if (res.status !== 200) throw new Error(`events failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as AdminEvent[];
}

/** Polls `check` until it returns a value (not undefined) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until every delivery of the transaction has left `pending`; returns the events. */
export function settled(t: TestApp, sessionId: string, timeoutMs = 15_000): Promise<AdminEvent[]> {
  return eventually(
    async () => {
      const events = await adminEvents(t, sessionId);
      return events.every((e) => e.deliveries.every((d) => d.status !== 'pending')) ? events : undefined;
    },
    timeoutMs,
    'deliveries to settle',
  );
}
