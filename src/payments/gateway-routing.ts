import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import type { Gateway } from '../gateways/gateway.entity';
import { Metrics } from '../metrics/metrics';
import type { RouteOutcome } from '../routing/route-decision.entity';
import { RouteDecisionsRepository } from '../routing/route-decisions.repository';
import { RouteHealthRepository, routeState, type RouteState } from '../routing/route-health.repository';
import { routerSettings, smoothWeightedPick, type RouterSettings } from '../routing/router-settings';

/** One route of a choice, in the order to try them, with its circuit as the choice found it. */
export interface PlannedRoute {
  gateway: string;
  state: RouteState;
}

/** The routes of one choice (contract §21), and the router's settings it was made with. */
export interface RoutePlan {
  router: Gateway;
  settings: RouterSettings;
  routes: PlannedRoute[];
}

/**
 * The choices of routing gateways (contract §21, docs/routing.md): in which order a payment tries a
 * router's routes, each route's health (in the database, shared by replicas), and the decisions a
 * transaction shows. Starting the payment on a route is the pay path's (RedirectPayments).
 */
@Injectable()
export class GatewayRouting {
  constructor(
    private readonly health: RouteHealthRepository,
    private readonly decisions: RouteDecisionsRepository,
    private readonly uow: UnitOfWork,
    private readonly metrics: Metrics,
  ) {}

  /**
   * The order in which one payment tries the router's routes. `priority`: the routes in their
   * order. `weighted`: the smooth weighted round-robin's pick among the routes whose circuit is not
   * open (its current weights stored, under a row lock, so replicas share one sequence), then the
   * others not open by weight, then the open ones. An open route is skipped unless all are.
   */
  async plan(router: Gateway, now: Date = new Date(), ensured = false): Promise<RoutePlan> {
    const settings = routerSettings(router.settings);
    const codes = settings.routes.map((route) => route.gateway);
    const planned = await this.uow.run(async (manager) => {
      // Only the weighted round-robin writes what it reads: a priority choice takes no lock.
      const rows = await this.health.readIn(manager, router.code, codes, settings.strategy === 'weighted');
      // A new route: its row first (once; a row still missing then is planned as a closed circuit).
      if (rows.length < codes.length && !ensured) return null;
      const states = settings.routes.map((route) =>
        routeState(
          rows.find((row) => row.gatewayCode === route.gateway),
          settings.unhealthyAfter,
          now,
        ),
      );
      const order = settings.routes.map((route, i) => ({ route, state: states[i], i }));
      const usable = order.filter((entry) => entry.state !== 'open');
      if (settings.strategy === 'weighted' && usable.length > 0) {
        const current = usable.map(
          (entry) => rows.find((row) => row.gatewayCode === entry.route.gateway)?.currentWeight ?? 0,
        );
        const picked = smoothWeightedPick(
          usable.map((entry) => entry.route.weight),
          current,
        );
        await this.health.saveWeightsIn(
          manager,
          router.code,
          new Map(usable.map((entry, i) => [entry.route.gateway, picked.current[i]])),
          now,
        );
        const first = usable[picked.index];
        const rest = usable
          .filter((entry) => entry !== first)
          .sort((a, b) => b.route.weight - a.route.weight || a.i - b.i);
        return [first, ...rest, ...order.filter((entry) => entry.state === 'open')];
      }
      // Priority: the routes in their order, open ones in place (recorded as skipped when passed).
      return order;
    });
    if (planned === null) {
      await this.health.ensure(router.code, codes, now);
      return this.plan(router, now, true);
    }
    for (const entry of planned) this.showHealth(router.code, entry.route.gateway, entry.state !== 'open');
    return {
      router,
      settings,
      routes: planned.map((entry) => ({ gateway: entry.route.gateway, state: entry.state })),
    };
  }

  /** Takes the one trial of a route whose cooldown has passed (false: another choice took it). */
  takeTrial(plan: RoutePlan, gateway: string, now: Date = new Date()): Promise<boolean> {
    return this.health.takeTrial(plan.router.code, gateway, now, this.cooldownEnd(plan, now));
  }

  /** A start on the route reached the provider: its circuit closes. */
  async started(
    plan: RoutePlan,
    gateway: string,
    transactionId: string,
    referenceNumber: string,
  ): Promise<void> {
    await this.health.succeeded(plan.router.code, gateway, new Date());
    this.showHealth(plan.router.code, gateway, true);
    await this.decide(plan, gateway, transactionId, 'started', referenceNumber);
  }

  /** A start on the route failed before the customer reached the provider: one more failure in a row. */
  async unavailable(
    plan: RoutePlan,
    gateway: string,
    transactionId: string,
    referenceNumber: string | null,
  ): Promise<void> {
    const now = new Date();
    const open = await this.health.failed(
      plan.router.code,
      gateway,
      plan.settings.unhealthyAfter,
      now,
      this.cooldownEnd(plan, now),
    );
    this.showHealth(plan.router.code, gateway, !open);
    await this.decide(plan, gateway, transactionId, 'unavailable', referenceNumber);
  }

  /** The route was not tried: its circuit is open. */
  skipped(plan: RoutePlan, gateway: string, transactionId: string): Promise<void> {
    return this.decide(plan, gateway, transactionId, 'skipped_unhealthy', null);
  }

  private async decide(
    plan: RoutePlan,
    gateway: string,
    transactionId: string,
    outcome: RouteOutcome,
    referenceNumber: string | null,
  ): Promise<void> {
    await this.decisions.record([
      {
        transactionId,
        routerCode: plan.router.code,
        gatewayCode: gateway,
        outcome,
        referenceNumber,
        createdAt: new Date(),
      },
    ]);
    this.metrics.routeAttempts.inc({ router: plan.router.code, gateway, outcome });
  }

  private cooldownEnd(plan: RoutePlan, now: Date): Date {
    return new Date(now.getTime() + plan.settings.cooldownSeconds * 1000);
  }

  private showHealth(router: string, gateway: string, healthy: boolean): void {
    this.metrics.routeHealthy.set({ router, gateway }, healthy ? 1 : 0);
  }
}
