import { TIMEOUT_MS_SETTING, type GatewayDriver } from '../../../gateways/gateway-drivers';
import { CASH_PG } from '../../../gateways/gateway.entity';

/** Cash's catalogue entry (contract §16, §20): offline; the merchant hands cash back as a refund. */
export const CASH_CATALOGUE: GatewayDriver = {
  pg: CASH_PG,
  name: 'Cash',
  flow: 'offline',
  settings: [TIMEOUT_MS_SETTING],
  operations: ['refund', 'partial_refund'],
  tokenizable: false,
  currencies: null,
};
