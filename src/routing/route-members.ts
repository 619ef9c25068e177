import type { Gateway } from '../gateways/gateway.entity';
import { routerSettings, ROUTER_PG } from './router-settings';

/** What a member is checked against: the routing gateway as it is being saved. */
export type RouterFields = Pick<Gateway, 'code' | 'type' | 'operation' | 'currencies' | 'tokenizable'> &
  Partial<Pick<Gateway, 'settings'>>;

/**
 * Why the routes of a routing gateway cannot be saved (contract §21), one message per problem, for
 * a 400 under `settings.routes`: a route must name an existing, active gateway that is not a router
 * and whose driver sends the customer to the provider's page (routing fails over a session start;
 * a card form or cash takes the money in one step), of the router's type (a sandbox router routes to
 * sandbox gateways), taking each of the router's currencies, doing its operation and tokenizing
 * when it does. `flowOf` is the driver flow of a `pg` (null when no driver serves it).
 */
export function routeMemberProblems(
  router: RouterFields,
  members: readonly Gateway[],
  flowOf: (pg: string) => string | null,
): string[] {
  const problems: string[] = [];
  for (const { gateway: code } of routerSettings(router.settings ?? null).routes) {
    const member = members.find((gateway) => gateway.code === code);
    if (!member) {
      problems.push(`Gateway "${code}" does not exist.`);
      continue;
    }
    if (member.code === router.code || member.pg === ROUTER_PG) {
      problems.push(`Gateway "${code}" is a routing gateway: routes name payment gateways.`);
      continue;
    }
    if (!member.isActive) problems.push(`Gateway "${code}" is not active.`);
    if (flowOf(member.pg) !== 'redirect') {
      problems.push(
        `Gateway "${code}" does not send the customer to its provider's page: only such gateways can be routed to.`,
      );
    }
    if (member.type !== router.type)
      problems.push(`Gateway "${code}" is a ${member.type} gateway; this router is ${router.type}.`);
    const missing = router.currencies.filter(
      (currency) => !member.currencies.includes(currency.toUpperCase()),
    );
    if (missing.length > 0) problems.push(`Gateway "${code}" does not take ${missing.join(', ')}.`);
    if (member.operation !== router.operation) {
      problems.push(
        `Gateway "${code}" does operation "${member.operation}"; this router does "${router.operation}".`,
      );
    }
    if (router.tokenizable && !member.tokenizable)
      problems.push(`Gateway "${code}" cannot save cards; this router does.`);
  }
  return problems;
}
