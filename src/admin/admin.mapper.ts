import type { AdminConfig } from '../admin-config/admin-config.entity';
import type { ApiKey } from '../auth/api-keys/api-key.entity';
import type { IssuedApiKey } from '../auth/api-keys/api-keys.service';
import type { User } from '../auth/users/user.entity';
import { canonicalDecimal } from '../common/money/money';
import type { Currency } from '../currencies/currency.entity';
import type { Gateway, GatewayFlow, GatewayOperation, GatewayType } from '../gateways/gateway.entity';
import type { GatewayInput } from '../gateways/gateways.service';
import { settingsView } from '../gateways/gateway-settings';
import type { GatewayDriver } from '../gateways/gateway-drivers';
import type { GatewayDriverDto } from './dto/gateway-driver.dto';
import type { UserChanges } from '../auth/users/users.service';
import type { AdminConfigDto } from './dto/admin-config.dto';
import type { ApiKeyDto, IssuedApiKeyDto } from './dto/api-key.dto';
import type { CurrencyDto } from './dto/currency.dto';
import type { NewGateway } from './admin.service';
import type { CreateGatewayDto, GatewayDto, UpdateGatewayDto } from './dto/gateway.dto';
import type { UpdateUserDto, UserDto } from './dto/user.dto';

/** Entities → admin response DTOs. Entities are never returned: a forgotten column cannot leak. */
const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export const toAdminConfigDto = (config: AdminConfig, environmentKey: string | null): AdminConfigDto => {
  const source = config.webhookSigningKey ? 'admin' : environmentKey ? 'environment' : null;
  return {
    auto_expire: config.autoExpire,
    default_redirect_url: config.defaultRedirectUrl,
    merchant_name: config.merchantName,
    webhook_signing_key_set: source !== null,
    webhook_signing_key_source: source,
  };
};

export const toCurrencyDto = (currency: Currency): CurrencyDto => ({
  code: currency.code,
  digits: currency.digits,
});

export const toGatewayDto = (gateway: Gateway): GatewayDto => ({
  code: gateway.code,
  name: gateway.name,
  pg: gateway.pg,
  type: gateway.type,
  operation: gateway.operation,
  currencies: gateway.currencies,
  fee_fixed: canonicalDecimal(gateway.feeFixed),
  fee_percent: canonicalDecimal(gateway.feePercent),
  icon: gateway.icon,
  flow: gateway.flow,
  require_customer_phone: gateway.requireCustomerPhone,
  is_active: gateway.isActive,
  tokenizable: gateway.tokenizable,
  instructions: gateway.instructions,
  ...settingsView(gateway),
  created_at: gateway.createdAt.toISOString(),
  updated_at: gateway.updatedAt.toISOString(),
});

export const toGatewayDriverDto = (driver: GatewayDriver): GatewayDriverDto => ({
  pg: driver.pg,
  name: driver.name,
  flow: driver.flow,
  settings: driver.settings.map((s) => ({
    name: s.name,
    required: s.required,
    secret: s.secret,
    default: s.default,
    description: s.description,
  })),
  operations: [...driver.operations],
  tokenizable: driver.tokenizable,
  currencies: driver.currencies ? [...driver.currencies] : null,
});

export const toApiKeyDto = (apiKey: ApiKey): ApiKeyDto => ({
  id: apiKey.id,
  name: apiKey.name,
  prefix: apiKey.prefix,
  created_at: apiKey.createdAt.toISOString(),
  expires_at: iso(apiKey.expiresAt),
  revoked_at: iso(apiKey.revokedAt),
});

export const toIssuedApiKeyDto = ({ apiKey, key }: IssuedApiKey): IssuedApiKeyDto => ({
  id: apiKey.id,
  name: apiKey.name,
  prefix: apiKey.prefix,
  key,
  created_at: apiKey.createdAt.toISOString(),
  expires_at: iso(apiKey.expiresAt),
});

export const toUserDto = (user: User): UserDto => ({
  id: user.id,
  username: user.username,
  gateway_codes: user.gatewayCodes,
  is_admin: user.isAdmin,
  is_active: user.isActive,
  created_at: user.createdAt.toISOString(),
  updated_at: user.updatedAt.toISOString(),
});

/** Drops the keys whose value is undefined (left out of a partial update). */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Gateway API field names → the service's input (only the fields sent). */
export function toGatewayChanges(body: UpdateGatewayDto): Partial<Omit<GatewayInput, 'code'>> {
  return definedOnly({
    name: body.name,
    pg: body.pg,
    type: body.type as GatewayType | undefined,
    operation: body.operation as GatewayOperation | undefined,
    currencies: body.currencies,
    feeFixed: body.fee_fixed,
    feePercent: body.fee_percent,
    icon: body.icon,
    flow: body.flow as GatewayFlow | undefined,
    requireCustomerPhone: body.require_customer_phone,
    isActive: body.is_active,
    tokenizable: body.tokenizable,
    instructions: body.instructions,
  });
}

/** A checked create-gateway body → the service's new gateway (the rest takes its defaults). */
export function toNewGateway(body: CreateGatewayDto): NewGateway {
  return {
    ...toGatewayChanges(body),
    code: body.code,
    name: body.name,
    pg: body.pg,
    type: body.type as GatewayType,
    currencies: body.currencies,
  };
}

/** User API field names → the service's input (only the fields sent). */
export function toUserChanges(body: UpdateUserDto): UserChanges {
  return definedOnly({
    username: body.username,
    password: body.password,
    gatewayCodes: body.gateway_codes,
    isAdmin: body.is_admin,
    isActive: body.is_active,
  });
}
