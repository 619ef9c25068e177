import { isSandbox, type Gateway } from './gateway.entity';

/** The icon of a gateway that has none of its own: the built-in one of its `pg`. */
export const defaultGatewayIcon = (base: string, pg: string): string =>
  `${base}/b/checkout/static/icons/${encodeURIComponent(pg)}.svg`;

/** How the public API names a gateway (a transaction's payment method, the payment-methods list). */
export interface GatewaySummary {
  code: string;
  name: string;
  pg: string;
  type: string;
  is_sandbox: boolean;
  icon: string;
  flow: string;
}

export function gatewaySummary(gateway: Gateway, publicBaseUrl: string): GatewaySummary {
  return {
    code: gateway.code,
    name: gateway.name,
    pg: gateway.pg,
    type: gateway.type,
    is_sandbox: isSandbox(gateway),
    icon: gateway.icon || defaultGatewayIcon(publicBaseUrl, gateway.pg),
    flow: gateway.flow,
  };
}
