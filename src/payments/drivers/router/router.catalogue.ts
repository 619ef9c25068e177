import {
  ALL_OPERATIONS,
  textSetting,
  type DriverSetting,
  type GatewayDriver,
} from '../../../gateways/gateway-drivers';
import {
  MAX_ROUTES,
  ROUTE_STRATEGIES,
  ROUTE_WEIGHT_MAX,
  ROUTE_WEIGHT_MIN,
  ROUTER_DEFAULTS,
  ROUTER_PG,
} from '../../../routing/router-settings';

const integer = (
  name: string,
  fallback: number,
  min: number,
  max: number,
  description: string,
): DriverSetting => ({
  name,
  required: false,
  secret: false,
  default: fallback,
  kind: 'integer',
  min,
  max,
  description,
});

/**
 * The `router` driver's catalogue entry (contract §21; docs/routing.md): a gateway that sends each
 * payment to one of its member gateways. Its own currencies, operation and tokenizing are the
 * gateway's fields, and every member must honour them (checked at save by the admin rules).
 */
export const ROUTER_CATALOGUE: GatewayDriver = {
  pg: ROUTER_PG,
  name: 'Routing across gateways',
  flow: 'redirect',
  settings: [
    {
      name: 'routes',
      required: true,
      secret: false,
      default: null,
      kind: 'routes',
      description:
        `The member gateways, in order: [{"gateway": "<code>", "weight": ${ROUTE_WEIGHT_MIN}-${ROUTE_WEIGHT_MAX}}], ` +
        `1 to ${MAX_ROUTES} active redirect gateways (not routers); weight only counts for "weighted".`,
    },
    textSetting(
      'strategy',
      '"priority": the first healthy route, in order; "weighted": healthy routes in proportion to their weight.',
      {
        default: ROUTER_DEFAULTS.strategy,
        choices: ROUTE_STRATEGIES,
      },
    ),
    {
      name: 'failover',
      required: false,
      secret: false,
      default: ROUTER_DEFAULTS.failover,
      kind: 'boolean',
      description:
        'When a route cannot start a payment (no money can have moved), start it on the next healthy route at once.',
    },
    integer(
      'unhealthy_after',
      ROUTER_DEFAULTS.unhealthyAfter,
      1,
      100,
      'Start failures in a row after which a route is skipped for cooldown_seconds.',
    ),
    integer(
      'cooldown_seconds',
      ROUTER_DEFAULTS.cooldownSeconds,
      1,
      86400,
      'How long an unhealthy route is skipped before one trial start.',
    ),
  ],
  operations: ALL_OPERATIONS,
  tokenizable: true,
  currencies: null,
};
