import type { DataSource } from 'typeorm';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { gatewayInput } from '../setup/fixtures';
import type { TestApp } from '../setup/test-app';

/** A saved card as the cards list answers it (contract §15). */
export interface CardJson {
  token: string;
  customer_id: string;
  pg_code: string;
  brand: string;
  name_on_card: string;
  number: string;
  expiry_month: string;
  expiry_year: string;
  agreements: string[];
  cvv_required: boolean;
}

/**
 * Two tokenizable sandbox gateways of the driver `pg` for the saved-card tests: `saving` (purchase)
 * and `savingAuth` (authorize only).
 */
export async function seedSavingGateways(
  t: TestApp,
  pg: string,
  codes: { saving: string; savingAuth: string },
  label: string,
): Promise<void> {
  const gateways = t.app.get(GatewaysService);
  const common = { pg, type: 'sandbox' as const, tokenizable: true, currencies: ['KWD', 'USD'] };
  await gateways.create(gatewayInput({ ...common, code: codes.saving, name: `${label} (saves cards)` }));
  await gateways.create(
    gatewayInput({
      ...common,
      code: codes.savingAuth,
      name: `${label} (saves, authorizes)`,
      operation: 'authorize',
    }),
  );
}

/** The customer's saved cards of sandbox gateways, through the cards API. */
export async function listCards(t: TestApp, apiKey: string, customer: string): Promise<CardJson[]> {
  const res = await t
    .http()
    .post('/b/pbl/v2/card/')
    .set('Authorization', apiKey)
    .send({ customer_id: customer, type: 'sandbox' })
    .expect(200);
  return res.body as CardJson[];
}

/** The provider's token of a saved card, as stored (never in an answer). */
export async function gatewayTokenOf(ds: DataSource, token: string): Promise<string> {
  const rows = await ds.query<{ gateway_token: string }[]>(
    'SELECT gateway_token FROM cards WHERE token = ?',
    [token],
  );
  return rows[0].gateway_token;
}
