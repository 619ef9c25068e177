import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import type { ProviderOverride } from '../../src/app.factory';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import { SETTLED_STATES, type TransactionState } from '../../src/transactions/transaction-state';
import { dataSourceOf } from '../events/event-helpers';
import type { KnetSimulator } from '../providers/knet/knet-simulator';
import { adminAuth, gatewayInput } from '../setup/fixtures';
import type { TestApp } from '../setup/test-app';

/** The simulator's terminal without API refunds (K-064 §3.7: the acquirer must enable action 2). */
export const NO_REFUNDS_TERMINAL = {
  tranportalId: '600002',
  password: 'pass600002',
  resourceKey: 'KNETRESOURCEKEY2',
  refunds: false,
};

/**
 * The simulator's terminal whose page takes a payment for 3 s only (K-064 §10 `IPAY0100042`), for
 * the `knet-quick` gateway, whose `page_timeout_minutes` says the same (0.05 min).
 */
export const QUICK_TERMINAL = {
  tranportalId: '600003',
  password: 'pass600003',
  resourceKey: 'KNETRESOURCEKEY3',
  refunds: true,
  pageLimitMs: 3000,
};
export const QUICK_PAGE_MINUTES = QUICK_TERMINAL.pageLimitMs / 60_000;

/**
 * `knet` gateways (contract §20; KWD only): `knet` on the simulator's terminal, `knet-norefund` on a
 * terminal without refunds, `knet-down` whose tranPipe reaches no one, `knet-quick` whose page times
 * out after 3 s.
 */
export async function seedKnetGateways(t: TestApp, sim: KnetSimulator): Promise<void> {
  sim.addTerminal(NO_REFUNDS_TERMINAL);
  sim.addTerminal(QUICK_TERMINAL);
  const gateways = t.app.get(GatewaysService);
  const common = { pg: 'knet', type: 'sandbox' as const, tokenizable: false, currencies: ['KWD'] };
  await gateways.create(gatewayInput({ ...common, code: 'knet', name: 'KNET' }));
  await gateways.create(gatewayInput({ ...common, code: 'knet-norefund', name: 'KNET without refunds' }));
  await gateways.create(gatewayInput({ ...common, code: 'knet-down', name: 'KNET unreachable' }));
  await gateways.create(gatewayInput({ ...common, code: 'knet-quick', name: 'KNET, 3 s page' }));
}

/** Nothing listens there: a connection is refused at once. */
const UNREACHABLE = 'http://127.0.0.1:9';

/**
 * The test's stand-in for the `knet` gateways' stored settings (contract §20): each talks to the
 * simulator over http on loopback (the driver allows http there only; docs/gateways/knet.md).
 */
export function knetSettings(sim: () => KnetSimulator, timeoutMs = 1500): ProviderOverride {
  return {
    provide: DRIVER_SETTINGS,
    useValue: {
      of: (gateway: Gateway) => {
        if (gateway.pg !== 'knet') return Promise.resolve({});
        const terminal =
          gateway.code === 'knet-norefund'
            ? NO_REFUNDS_TERMINAL
            : gateway.code === 'knet-quick'
              ? QUICK_TERMINAL
              : sim().terminal;
        return Promise.resolve({
          tranportal_id: terminal.tranportalId,
          tranportal_password: terminal.password,
          resource_key: terminal.resourceKey,
          payment_url: sim().paymentUrl,
          inquiry_url: gateway.code === 'knet-down' ? `${UNREACHABLE}/kpg/tranPipe.htm` : sim().inquiryUrl,
          timeout_ms: timeoutMs,
          // The catalogue's default (30) but for knet-quick, as a stored setting would be.
          page_timeout_minutes: gateway.code === 'knet-quick' ? QUICK_PAGE_MINUTES : 30,
        });
      },
    },
  };
}

export interface KnetAttemptRow {
  reference_number: string;
  result: string;
  response_code: string;
  settled_at: unknown;
  left_at: unknown;
  provider_data: string | null;
}

export async function knetAttemptsOf(ds: DataSource, sessionId: string): Promise<KnetAttemptRow[]> {
  return ds.query<KnetAttemptRow[]>(
    `SELECT a.reference_number, a.result, a.response_code, a.settled_at, a.left_at, a.provider_data
     FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id
     WHERE t.session_id = ? ORDER BY a.id`,
    [sessionId],
  );
}

/** What an attempt keeps of KNET's side (its `provider_data`). */
export function providerOf(row: KnetAttemptRow): Record<string, string> {
  if (row.provider_data === null) return {};
  return (
    typeof row.provider_data === 'string' ? JSON.parse(row.provider_data) : row.provider_data
  ) as Record<string, string>;
}

/**
 * The money audit that ends each KNET suite (contract §20.1 "Reconciliation proves it"): every
 * payment KNET took and kept (the simulator's ledger: CAPTURED, not reversed) is matched to exactly
 * one successful attempt of ours, by reference number (= KNET's track id) and amount, whose
 * transaction shows the money (paid, or refunded since); no two payments match one transaction; no
 * successful KNET attempt of ours lacks KNET's payment; and the reconciliation report since `since`
 * counts no mismatch.
 */
export async function knetMoneyAudit(t: TestApp, sim: KnetSimulator, since: Date): Promise<void> {
  const rows = await dataSourceOf(t).query<
    {
      reference_number: string;
      amount: string | number;
      result: string;
      state: TransactionState;
      session_id: string;
    }[]
  >(
    `SELECT a.reference_number, a.amount, a.result, t.state, t.session_id
     FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id
     WHERE a.pg_code LIKE 'knet%'`,
  );
  const kwd = (amount: string | number) => Number(amount).toFixed(3);
  const ledger = sim.ledger();
  const matched = new Set<string>();
  for (const payment of ledger) {
    const ours = rows.filter(
      (row) =>
        row.reference_number === payment.trackId &&
        row.result === 'success' &&
        kwd(row.amount) === kwd(payment.amount) &&
        SETTLED_STATES.includes(row.state),
    );
    assert.equal(
      ours.length,
      1,
      `KNET took ${payment.amount} KWD on track ${payment.trackId}: one paid transaction`,
    );
    assert.ok(!matched.has(ours[0].session_id), `transaction ${ours[0].session_id} matched twice`);
    matched.add(ours[0].session_id);
  }
  for (const row of rows.filter((r) => r.result === 'success'))
    assert.ok(
      ledger.some((payment) => payment.trackId === row.reference_number),
      `attempt ${row.reference_number} is paid but KNET kept no payment for it`,
    );
  const report = await t
    .http()
    .get(`/b/checkout/v1/admin/reconciliation/?since=${encodeURIComponent(since.toISOString())}`)
    .set('Authorization', adminAuth());
  assert.equal(report.status, 200, JSON.stringify(report.body));
  const body = report.body as { totals: { mismatch: number } };
  assert.equal(body.totals.mismatch, 0, JSON.stringify(report.body));
}

/** The simulator's hosted-page form, as the customer's browser submits it. */
export function pageForm(paymentId: string, fields: Record<string, string>): string {
  return new URLSearchParams({ PaymentID: paymentId, ...fields }).toString();
}

/** The test card that KNET captures (K-064 §4): expiry month 09. */
export const PAY = {
  action: 'submit',
  bank: 'KNET1',
  cardN: '8888880000000001',
  expmm: '09',
  expyy: '2030',
  pin: '1234',
};
/** The same card with another expiry month: NOT CAPTURED. */
export const DECLINE = { ...PAY, expmm: '10' };
export const CANCEL = { action: 'cancel' };
