import { ApiKeysService } from '../../src/auth/api-keys/api-keys.service';
import { UsersService } from '../../src/auth/users/users.service';
import { CurrenciesService } from '../../src/currencies/currencies.service';
import { GatewayInput, GatewaysService } from '../../src/gateways/gateways.service';
import { ADMIN, TestApp } from './test-app';

export const basicAuth = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
export const apiKeyAuth = (key: string): string => `Api-Key ${key}`;
export const adminAuth = (): string => basicAuth(ADMIN.username, ADMIN.password);

export function gatewayInput(overrides: Partial<GatewayInput> = {}): GatewayInput {
  return {
    code: 'sandbox',
    name: 'Sandbox card',
    pg: 'sandbox',
    type: 'sandbox',
    operation: 'purchase',
    currencies: ['KWD', 'USD', 'JPY'],
    feeFixed: '0',
    feePercent: '0',
    icon: '',
    flow: 'redirect',
    requireCustomerPhone: false,
    isActive: true,
    tokenizable: true,
    instructions: '',
    ...overrides,
  };
}

export interface Seeded {
  /** `Authorization` header value of an API key. */
  apiKey: string;
  /** `Authorization` header value of a Basic user allowed only `sandbox`. */
  merchant: string;
  merchantId: number;
}

/**
 * The usual world of a test: KWD (3), USD (2), JPY (0) currencies, an active `sandbox` gateway,
 * an API key and a Basic user allowed `sandbox` only. Built through the services, as an admin would.
 */
export async function seedBasics(t: TestApp): Promise<Seeded> {
  const currencies = t.app.get(CurrenciesService);
  for (const code of ['KWD', 'USD', 'JPY']) await currencies.create(code);
  await t.app.get(GatewaysService).create(gatewayInput());
  const { key } = await t.app.get(ApiKeysService).issue('test key');
  const user = await t.app
    .get(UsersService)
    .create({ username: 'merchant', password: 'merchant-pass-1', gatewayCodes: ['sandbox'] });
  return { apiKey: apiKeyAuth(key), merchant: basicAuth('merchant', 'merchant-pass-1'), merchantId: user.id };
}
