import type { DataSource } from 'typeorm';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import type { ProviderOverride } from '../../src/app.factory';
import { gatewayInput } from '../setup/fixtures';
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
