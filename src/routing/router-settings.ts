import type { Gateway } from '../gateways/gateway.entity';

/** The `pg` of routing gateways (contract §21). */
export const ROUTER_PG = 'router';

export const isRouter = (gateway: Pick<Gateway, 'pg'> | null | undefined): boolean =>
  gateway?.pg === ROUTER_PG;

export { ROUTES_MAX as MAX_ROUTES, ROUTE_WEIGHT_MAX, ROUTE_WEIGHT_MIN } from '../gateways/gateway-drivers';
export const ROUTE_STRATEGIES = ['priority', 'weighted'] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

/** One route as stored: a member gateway's code and its weight (1 when none is given). */
export interface Route {
  gateway: string;
  weight: number;
}

/** A routing gateway's settings, defaults applied (contract §21). */
export interface RouterSettings {
  routes: Route[];
  strategy: RouteStrategy;
  failover: boolean;
  unhealthyAfter: number;
  cooldownSeconds: number;
}

export const ROUTER_DEFAULTS = {
  strategy: 'priority',
  failover: true,
  unhealthyAfter: 3,
  cooldownSeconds: 60,
} as const;

/**
 * A router's settings as its gateway stores them (checked at save: settings-validation.ts and the
 * admin's member rules), defaults applied. Anything unreadable counts as absent.
 */
export function routerSettings(stored: Readonly<Record<string, unknown>> | null): RouterSettings {
  const values = stored ?? {};
  const routes = Array.isArray(values.routes) ? (values.routes as unknown[]) : [];
  return {
    routes: routes.flatMap((route): Route[] => {
      if (!route || typeof route !== 'object') return [];
      const { gateway, weight } = route as { gateway?: unknown; weight?: unknown };
      if (typeof gateway !== 'string') return [];
      return [{ gateway, weight: typeof weight === 'number' ? weight : 1 }];
    }),
    strategy: values.strategy === 'weighted' ? 'weighted' : ROUTER_DEFAULTS.strategy,
    failover: typeof values.failover === 'boolean' ? values.failover : ROUTER_DEFAULTS.failover,
    unhealthyAfter:
      typeof values.unhealthy_after === 'number' ? values.unhealthy_after : ROUTER_DEFAULTS.unhealthyAfter,
    cooldownSeconds:
      typeof values.cooldown_seconds === 'number' ? values.cooldown_seconds : ROUTER_DEFAULTS.cooldownSeconds,
  };
}

/**
 * The smooth weighted round-robin's next pick (nginx's algorithm): every route's current weight
 * grows by its weight, the largest wins and gives back the total. Deterministic, and over any run
 * of choices each route's share stays within one pick of its weight's. Returns the winner's index
 * and the new current weights (the caller stores them, shared by replicas).
 */
export function smoothWeightedPick(
  weights: readonly number[],
  current: readonly number[],
): { index: number; current: number[] } {
  const next = current.map((value, i) => value + weights[i]);
  let index = 0;
  for (let i = 1; i < next.length; i++) if (next[i] > next[index]) index = i;
  next[index] -= weights.reduce((sum, weight) => sum + weight, 0);
  return { index, current: next };
}
