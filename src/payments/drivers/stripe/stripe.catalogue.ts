import {
  ALL_OPERATIONS,
  textSetting,
  TIMEOUT_MS_SETTING,
  urlSetting,
  type GatewayDriver,
} from '../../../gateways/gateway-drivers';
import { stripeAmountRule } from '../../providers/stripe/stripe-amount-rule';

/** The `stripe` driver's catalogue entry (contract §20, §20.1; docs/gateways/stripe.md). */
export const STRIPE_CATALOGUE: GatewayDriver = {
  pg: 'stripe',
  name: 'Stripe',
  flow: 'redirect',
  settings: [
    textSetting('secret_key', "The account's secret API key (sk_… or rk_…).", {
      required: true,
      secret: true,
    }),
    textSetting(
      'webhook_secret',
      "The webhook endpoint's signing secret (whsec_…); unset, notifications are refused.",
      { secret: true },
    ),
    // Stripe's SDK takes a host and a port, never a path (stripe-client.ts refuses one at every call).
    urlSetting('api_base_url', "Stripe's API host (an origin: no path).", {
      default: 'https://api.stripe.com',
      origin: true,
    }),
    TIMEOUT_MS_SETTING,
  ],
  operations: ALL_OPERATIONS,
  tokenizable: true,
  currencies: null,
  amountProblem: stripeAmountRule,
};
