import type { DataSource } from 'typeorm';
import type { ProviderOverride } from '../../src/app.factory';
import type { Gateway } from '../../src/gateways/gateway.entity';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { DRIVER_SETTINGS } from '../../src/payments/driver-settings';
import type { KnetSimulator } from '../providers/knet/knet-simulator';
import { gatewayInput } from '../setup/fixtures';
import type { TestApp } from '../setup/test-app';

/** The simulator's terminal without API refunds (K-064 §3.7: the acquirer must enable action 2). */
export const NO_REFUNDS_TERMINAL = {
  tranportalId: '600002',
  password: 'pass600002',
  resourceKey: 'KNETRESOURCEKEY2',
  refunds: false,
};

/**
 * `knet` gateways (contract §20; KWD only): `knet` on the simulator's terminal, `knet-norefund` on a
 * terminal without refunds, `knet-down` whose tranPipe reaches no one.
 */
export async function seedKnetGateways(t: TestApp, sim: KnetSimulator): Promise<void> {
  sim.addTerminal(NO_REFUNDS_TERMINAL);
  const gateways = t.app.get(GatewaysService);
  const common = { pg: 'knet', type: 'sandbox' as const, tokenizable: false, currencies: ['KWD'] };
  await gateways.create(gatewayInput({ ...common, code: 'knet', name: 'KNET' }));
  await gateways.create(gatewayInput({ ...common, code: 'knet-norefund', name: 'KNET without refunds' }));
  await gateways.create(gatewayInput({ ...common, code: 'knet-down', name: 'KNET unreachable' }));
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
        const terminal = gateway.code === 'knet-norefund' ? NO_REFUNDS_TERMINAL : sim().terminal;
        return Promise.resolve({
          tranportal_id: terminal.tranportalId,
          tranportal_password: terminal.password,
          resource_key: terminal.resourceKey,
          payment_url: sim().paymentUrl,
          inquiry_url: gateway.code === 'knet-down' ? `${UNREACHABLE}/kpg/tranPipe.htm` : sim().inquiryUrl,
          timeout_ms: timeoutMs,
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
  provider_data: string | null;
}

export async function knetAttemptsOf(ds: DataSource, sessionId: string): Promise<KnetAttemptRow[]> {
  return ds.query<KnetAttemptRow[]>(
    `SELECT a.reference_number, a.result, a.response_code, a.settled_at, a.provider_data
     FROM payment_attempts a JOIN transactions t ON t.id = a.transaction_id
     WHERE t.session_id = ? ORDER BY a.id`,
    [sessionId],
  );
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
