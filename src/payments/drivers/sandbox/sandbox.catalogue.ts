import { ALL_OPERATIONS, TIMEOUT_MS_SETTING, type GatewayDriver } from '../../../gateways/gateway-drivers';

/** The sandbox's catalogue entry (contract §9, §20): the test card form, which can do everything. */
export const SANDBOX_CATALOGUE: GatewayDriver = {
  pg: 'sandbox',
  name: 'Sandbox (test cards)',
  flow: 'card_form',
  settings: [TIMEOUT_MS_SETTING],
  operations: ALL_OPERATIONS,
  tokenizable: true,
  currencies: null,
};
