import { ApiKeysService } from '../../src/auth/api-keys/api-keys.service';
import type { Principal } from '../../src/auth/principal';
import { userPrincipal } from '../../src/auth/principal';
import { UsersService } from '../../src/auth/users/users.service';
import { numberOnlyDefaults, readNewCard } from '../../src/cards/card-input';
import { CurrenciesService } from '../../src/currencies/currencies.service';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { PaymentsService, type AttemptResultView } from '../../src/payments/payments.service';
import type { TransactionBody } from '../../src/transactions/transaction-body';
import { TransactionsService, type TransactionView } from '../../src/transactions/transactions.service';
import { transactionBody } from '../factories/transaction.factory';
import { gatewayInput } from './fixtures';
import type { ServiceContext } from './service-context';

/** contract §9's test cards as the customer types them. */
export const CARDS = {
  success: '4111 1111 1111 1111',
  declined: '4000 0000 0000 0002',
  error: '4000 0000 0000 0119',
} as const;

/** The callers of a service test: an API key (every gateway) and a Basic user allowed `sandbox`. */
export interface ServiceWorld {
  apiKey: Principal;
  merchant: Principal;
}

/**
 * The usual world, built through the services as an admin would: KWD (3), USD (2), JPY (0), a
 * `sandbox` purchase gateway, a `sandbox-auth` authorize gateway, an API key and a user.
 */
export async function seedServiceWorld(ctx: ServiceContext): Promise<ServiceWorld> {
  const currencies = ctx.get(CurrenciesService);
  for (const code of ['KWD', 'USD', 'JPY']) await currencies.create(code);
  const gateways = ctx.get(GatewaysService);
  await gateways.create(gatewayInput());
  await gateways.create(gatewayInput({ code: 'sandbox-auth', operation: 'authorize' }));
  const { apiKey } = await ctx.get(ApiKeysService).issue('service test key');
  const user = await ctx
    .get(UsersService)
    .create({ username: 'merchant', password: 'merchant-pass-1', gatewayCodes: ['sandbox'] });
  return {
    apiKey: { kind: 'api-key', apiKeyId: apiKey.id, name: apiKey.name },
    merchant: userPrincipal(user),
  };
}

/** A JSON create/update body (see transactionBody for the defaults). */
export const jsonBody = (fields: Record<string, unknown> = {}): TransactionBody => ({
  mediaType: 'json',
  fields,
  files: [],
});

/** Creates a transaction through TransactionsService.create (defaults: 86.000 KWD on sandbox). */
export function createTransaction(
  ctx: ServiceContext,
  principal: Principal,
  overrides: Record<string, unknown> = {},
): Promise<TransactionView> {
  return ctx.get(TransactionsService).create(principal, jsonBody(transactionBody(overrides)));
}

/** One attempt with a typed test card, as the §9 test helper makes it. */
export function payWith(
  ctx: ServiceContext,
  sessionId: string,
  card: string,
  save = false,
): Promise<AttemptResultView> {
  return ctx.get(PaymentsService).attempt(sessionId, {
    payWith: { card: readNewCard({ card }, numberOnlyDefaults()), save },
    sandboxOnly: true,
  });
}
