import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import { Money } from '../../src/common/money/money';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import type { ProviderOverride } from '../../src/app.factory';
import { adminAuth, gatewayInput } from '../setup/fixtures';
import type { TestApp } from '../setup/test-app';
import type { MpgsSimulator } from '../providers/mpgs/mpgs-simulator';
import type { AttemptRow } from './stripe-helpers';

export { attemptsOf, type AttemptRow } from './stripe-helpers';

/**
 * `mpgs` gateways on the MPGS simulator: one that pays (`mpgs`), one that only authorizes
 * (`mpgs-auth`), one without a notification secret (`mpgs-nosecret`), one nobody answers for
 * (`mpgs-down`).
 */
export async function seedMpgsGateways(t: TestApp): Promise<void> {
  const gateways = t.app.get(GatewaysService);
  const common = { pg: 'mpgs', type: 'sandbox' as const, tokenizable: false, currencies: ['KWD', 'USD'] };
  await gateways.create(gatewayInput({ ...common, code: 'mpgs', name: 'Mastercard Gateway' }));
  await gateways.create(
    gatewayInput({ ...common, code: 'mpgs-auth', name: 'MPGS (authorize)', operation: 'authorize' }),
  );
  await gateways.create(gatewayInput({ ...common, code: 'mpgs-nosecret', name: 'MPGS without webhooks' }));
  await gateways.create(gatewayInput({ ...common, code: 'mpgs-down', name: 'MPGS unreachable' }));
}

/** Nothing listens there: a connection is refused at once. */
const UNREACHABLE = 'http://127.0.0.1:9';

/**
 * The test's stand-in for the gateways' stored settings (contract §20): each `mpgs` gateway talks to
 * the simulator (`sim.settings()`); `mpgs-nosecret` has no notification_secret; `mpgs-down` reaches
 * no one.
 */
export function mpgsSettings(sim: () => MpgsSimulator, timeoutMs = 1500): ProviderOverride {
  return {
    provide: DRIVER_SETTINGS,
    useValue: {
      of: (gateway: Gateway) => {
        if (gateway.pg !== 'mpgs') return Promise.resolve({});
        const { notification_secret, ...rest } = sim().settings({ timeout_ms: timeoutMs, api_version: 100 });
        return Promise.resolve({
          ...rest,
          ...(gateway.code === 'mpgs-nosecret' ? {} : { notification_secret }),
          ...(gateway.code === 'mpgs-down' ? { api_base_url: UNREACHABLE } : {}),
        });
      },
    },
  };
}

/** What the mpgs driver kept of an attempt's checkout session. */
export function mpgsSessionOf(row: AttemptRow): { session_id: string; success_indicator: string } {
  const data = JSON.parse(row.provider_data ?? '{}') as Record<string, string>;
  return { session_id: data.session_id ?? '', success_indicator: data.success_indicator ?? '' };
}

/** The test cards' expiry dates that decide the outcome (docs/gateways/mpgs.md "Test cards"). */
export const MPGS_CARDS = {
  approved: { number: '5123450000000008', expiry: '01/39', csc: '100' },
  declined: { number: '5123450000000008', expiry: '05/39', csc: '100' },
} as const;

/** An MPGS attempt as stored, with whether the customer left it (contract §20.1). */
export interface MpgsAttemptRow extends AttemptRow {
  left_at: unknown;
  attempt_in_flight: string | null;
}

/** Every attempt of a transaction, oldest first, with `left_at` and the transaction's holder. */
export function mpgsAttemptsOf(ds: DataSource, sessionId: string): Promise<MpgsAttemptRow[]> {
  return ds.query<MpgsAttemptRow[]>(
    `SELECT a.reference_number, a.result, a.response_code, a.settled_at, a.provider_data, a.left_at,
            t.attempt_in_flight
     FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id
     WHERE t.session_id = ? ORDER BY a.id`,
    [sessionId],
  );
}

/**
 * Ends an attempt's checkout session as time would: MPGS expires it (its page pays nothing any
 * more) and what the driver stored of it says it is over (`resume_until` and `payable_until`
 * passed), so that inquiry learns the session's end without waiting an hour.
 */
export async function endMpgsSession(ds: DataSource, sim: MpgsSimulator, reference: string): Promise<void> {
  const [row] = await ds.query<{ provider_data: string | null }[]>(
    'SELECT provider_data FROM payment_attempts WHERE reference_number = ?',
    [reference],
  );
  const provider = JSON.parse(row?.provider_data ?? '{}') as Record<string, string>;
  if (provider.session_id && sim.sessionOf(provider.session_id)) sim.expireSession(provider.session_id);
  const past = new Date(Date.now() - 1000).toISOString();
  await ds.query('UPDATE payment_attempts SET provider_data = ? WHERE reference_number = ?', [
    JSON.stringify({ ...provider, resume_until: past, payable_until: past }),
    reference,
  ]);
}

/** The reconciliation report (contract §20.1) since `since`. */
export async function reconciliationSince(
  t: TestApp,
  since: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t
    .http()
    .get(`/b/checkout/v1/admin/reconciliation/?since=${encodeURIComponent(since)}`)
    .set('Authorization', adminAuth());
  return { status: res.status, body: res.body as Record<string, unknown> };
}

/** States only a successful attempt leads to (the gateway took or holds the money). */
const TAKEN = ['paid', 'authorized', 'captured', 'voided', 'refunded'];

/** What does not match between the simulator's ledger and our transactions (empty: all matched). */
async function ledgerProblems(ds: DataSource, sim: MpgsSimulator): Promise<string[]> {
  const charged = new Map<string, string>();
  const problems: string[] = [];
  for (const charge of sim.charges()) {
    const [row] = await ds.query<
      { result: string; amount: string; currency_code: string; state: string; session_id: string }[]
    >(
      `SELECT a.result, a.amount, a.currency_code, t.state, t.session_id
       FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id
       WHERE a.reference_number = ?`,
      [charge.orderId],
    );
    const what = `${charge.type} ${charge.amount} ${charge.currency} of order ${charge.orderId}`;
    if (!row) {
      problems.push(`${what}: no attempt`);
      continue;
    }
    if (row.result !== 'success') problems.push(`${what}: attempt ${row.result}`);
    if (!new Money(String(row.amount)).eq(charge.amount) || row.currency_code !== charge.currency)
      problems.push(`${what}: attempt for ${String(row.amount)} ${row.currency_code}`);
    if (!TAKEN.includes(row.state)) problems.push(`${what}: transaction ${row.session_id} is ${row.state}`);
    const twice = charged.get(row.session_id);
    if (twice) problems.push(`${what}: transaction ${row.session_id} was charged by ${twice} too`);
    charged.set(row.session_id, charge.orderId);
  }
  return problems;
}

/**
 * The money audit that ends each MPGS suite: every successful PAYMENT or AUTHORIZATION
 * in the simulator's ledger is matched to exactly one transaction that shows it (the attempt of its
 * reference succeeded, for that amount and currency, and its transaction is in a state only a
 * successful payment leads to), no transaction is charged twice, and the reconciliation report
 * since the suite began counts no mismatch.
 */
export async function assertMoneyAudit(
  t: TestApp,
  ds: DataSource,
  sim: MpgsSimulator,
  since: string,
): Promise<void> {
  // Payments on sessions the customer left are recorded by the watcher (the reconciler) as it gets
  // to them: the audit gives it that time, then every charge must be accounted for.
  const deadline = Date.now() + 30_000;
  let problems = await ledgerProblems(ds, sim);
  while (problems.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    problems = await ledgerProblems(ds, sim);
  }
  assert.deepEqual(problems, [], 'every MPGS charge is one paid transaction');
  const report = await reconciliationSince(t, since);
  assert.equal(report.status, 200, JSON.stringify(report.body));
  const totals = report.body.totals as { mismatch: number };
  assert.equal(totals.mismatch, 0, JSON.stringify(report.body));
  const gateways = (report.body.gateways ?? []) as { pg: string; mismatch: number }[];
  for (const gateway of gateways.filter((g) => g.pg === 'mpgs')) assert.equal(gateway.mismatch, 0);
}
