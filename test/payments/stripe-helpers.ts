import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import type { ProviderOverride } from '../../src/app.factory';
import { fromStripeAmount, toStripeAmount } from '../../src/payments/providers/stripe/stripe-amounts';
import { adminEvents } from '../events/event-helpers';
import { adminAuth, gatewayInput } from '../setup/fixtures';
import type { TestApp } from '../setup/test-app';
import type { StripeSimulator } from '../providers/stripe/stripe-simulator';

/** A `stripe` gateway that charges (`stripe`) and one that only authorizes (`stripe-auth`). */
export async function seedStripeGateways(t: TestApp): Promise<void> {
  const gateways = t.app.get(GatewaysService);
  const common = { pg: 'stripe', type: 'sandbox' as const, tokenizable: false, currencies: ['KWD', 'USD'] };
  await gateways.create(gatewayInput({ ...common, code: 'stripe', name: 'Stripe' }));
  await gateways.create(
    gatewayInput({ ...common, code: 'stripe-auth', name: 'Stripe (authorize)', operation: 'authorize' }),
  );
  await gateways.create(gatewayInput({ ...common, code: 'stripe-nohook', name: 'Stripe without webhooks' }));
  await gateways.create(gatewayInput({ ...common, code: 'stripe-down', name: 'Stripe unreachable' }));
}

/** Nothing listens there: a connection is refused at once. */
const UNREACHABLE = 'http://127.0.0.1:9';

/**
 * The test's stand-in for the gateways' stored settings (contract §20): each `stripe` gateway talks to
 * the simulator; `stripe-nohook` has no webhook_secret; `stripe-down` reaches no one.
 */
export function stripeSettings(sim: () => StripeSimulator, timeoutMs = 1500): ProviderOverride {
  return {
    provide: DRIVER_SETTINGS,
    useValue: {
      of: (gateway: Gateway) =>
        Promise.resolve(
          gateway.pg !== 'stripe'
            ? {}
            : {
                secret_key: sim().secretKey,
                api_base_url: gateway.code === 'stripe-down' ? UNREACHABLE : sim().baseUrl,
                timeout_ms: timeoutMs,
                ...(gateway.code === 'stripe-nohook' ? {} : { webhook_secret: sim().webhookSecret }),
              },
        ),
    },
  };
}

export interface AttemptRow {
  reference_number: string;
  result: string;
  response_code: string;
  settled_at: unknown;
  provider_data: string | null;
}

export async function attemptsOf(ds: DataSource, sessionId: string): Promise<AttemptRow[]> {
  return ds.query<AttemptRow[]>(
    `SELECT a.reference_number, a.result, a.response_code, a.settled_at, a.provider_data
     FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id
     WHERE t.session_id = ? ORDER BY a.id`,
    [sessionId],
  );
}

/** The Checkout Session id of an attempt, as stored before the customer was sent to Stripe. */
export function sessionIdOf(row: AttemptRow): string {
  return (JSON.parse(row.provider_data ?? '{}') as { session_id?: string }).session_id ?? '';
}

/**
 * The `settings` of a `stripe` gateway stored through the admin API (contract §20, "Configuring a
 * driver") that talks to the simulator: what a test gives service processes it cannot override in
 * place (the Galera cluster's replicas), saved encrypted under their SECRETS_KEY.
 */
export function storedStripeSettings(sim: StripeSimulator, timeoutMs = 5000): Record<string, unknown> {
  return {
    secret_key: sim.secretKey,
    webhook_secret: sim.webhookSecret,
    api_base_url: sim.baseUrl,
    timeout_ms: timeoutMs,
  };
}

/** The states of a transaction that took money (or holds it) from its one successful attempt. */
const MONEY_STATES = new Set(['paid', 'authorized', 'captured', 'voided', 'refunded']);

/**
 * The money audit that ends each Stripe suite (contract §20.1, "Reconciliation proves it"): every
 * charge that went through at Stripe (the simulator's ledger) is matched to exactly one transaction
 * that took it — by the reference its PaymentIntent carries, for the same amount and currency, on
 * the transaction's one successful attempt, with one `paid` (or `authorized`) event — no transaction
 * is charged twice; and the reconciliation report since `since` counts no mismatch.
 */
export async function assertMoneyAudit(
  t: TestApp,
  ds: DataSource,
  sim: StripeSimulator,
  since: Date,
): Promise<void> {
  const ledger = sim.ledger();
  assert.ok(ledger.length > 0, 'the suite took money at Stripe');
  const charged = new Map<string, string>();
  for (const charge of ledger) {
    assert.ok(charge.reference, `charge ${charge.charge} carries a reference`);
    const [attempt] = await ds.query<
      {
        transaction_id: string;
        result: string;
        amount: string;
        currency_code: string;
        state: string;
        session_id: string;
      }[]
    >(
      `SELECT a.transaction_id, a.result, a.amount, a.currency_code, t.state, t.session_id
       FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id WHERE a.reference_number = ?`,
      [charge.reference],
    );
    assert.ok(attempt, `charge ${charge.reference} belongs to an attempt`);
    const where = `${charge.reference} (${attempt.session_id})`;
    assert.equal(attempt.result, 'success', `the attempt of ${where} is a success`);
    assert.ok(
      MONEY_STATES.has(attempt.state),
      `the transaction of ${where} took the money (${attempt.state})`,
    );
    assert.equal(
      fromStripeAmount(charge.amount, charge.currency),
      fromStripeAmount(toStripeAmount(String(attempt.amount), attempt.currency_code), attempt.currency_code),
      `the amount of ${where}`,
    );
    assert.equal(charge.currency.toUpperCase(), attempt.currency_code);
    const other = charged.get(String(attempt.transaction_id));
    assert.equal(
      other,
      undefined,
      `transaction ${attempt.session_id} charged twice: ${other} and ${charge.reference}`,
    );
    charged.set(String(attempt.transaction_id), charge.reference);
    const successes = await ds.query<{ n: number | string }[]>(
      "SELECT COUNT(*) AS n FROM payment_attempts WHERE transaction_id = ? AND result = 'success'",
      [attempt.transaction_id],
    );
    assert.equal(Number(successes[0].n), 1, `one successful attempt on ${attempt.session_id}`);
    const events = (await adminEvents(t, attempt.session_id)).map((e) => e.event);
    assert.equal(
      events.filter((e) => e === 'paid' || e === 'authorized').length,
      1,
      `one paid webhook for ${where}: ${events.join(', ')}`,
    );
  }
  const report = await t
    .http()
    .get(`/b/checkout/v1/admin/reconciliation/?since=${encodeURIComponent(since.toISOString())}`)
    .set('Authorization', adminAuth());
  assert.equal(report.status, 200, JSON.stringify(report.body));
  const totals = (report.body as { totals: { mismatch: number; matched: number } }).totals;
  assert.equal(totals.mismatch, 0, JSON.stringify(report.body));
  assert.ok(totals.matched >= charged.size, JSON.stringify(report.body));
}
