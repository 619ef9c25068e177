import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import type { ProviderOverride } from '../../src/app.factory';
import { gatewayInput } from '../setup/fixtures';
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
