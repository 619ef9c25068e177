import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { Dialect } from '../database/dialect';
import { UnitOfWork } from '../database/unit-of-work';
import { RouteHealth } from './route-health.entity';

/** A route's circuit as a choice sees it (contract §21). */
export type RouteState = 'closed' | 'open' | 'trial';

/**
 * The routes' health, in the database so that every replica shares it (contract §21): failures in
 * a row, the circuit's `open_until`, the weighted round-robin's current weights. Each change is one
 * conditional statement, so replicas racing on the same route never lose a failure or take the
 * same trial twice.
 */
@Injectable()
export class RouteHealthRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Rows for the routes that have none yet (a new router, a route added): idempotent. */
  async ensure(routerCode: string, gatewayCodes: readonly string[], now: Date): Promise<void> {
    if (gatewayCodes.length === 0) return;
    await this.uow.retrying((manager) =>
      manager
        .createQueryBuilder()
        .insert()
        .into(RouteHealth)
        .values(
          gatewayCodes.map((gatewayCode) => ({
            routerCode,
            gatewayCode,
            failures: 0,
            openUntil: null,
            currentWeight: 0,
            updatedAt: now,
          })),
        )
        .orIgnore()
        .execute(),
    );
  }

  /**
   * The routes' rows inside the caller's unit; with `lock`, locked until it ends on MySQL (the
   * weighted round-robin's read-modify-write; SQLite has one writer).
   */
  async readIn(
    manager: EntityManager,
    routerCode: string,
    gatewayCodes: readonly string[],
    lock: boolean,
  ): Promise<RouteHealth[]> {
    const query = manager
      .getRepository(RouteHealth)
      .createQueryBuilder('h')
      .where('h.router_code = :routerCode', { routerCode })
      .andWhere({ gatewayCode: In([...gatewayCodes]) });
    if (lock && Dialect.of(manager).isMysql) query.setLock('pessimistic_write');
    return (await query.getMany()).filter(
      (row) => row.routerCode === routerCode && gatewayCodes.includes(row.gatewayCode),
    );
  }

  /** Every route of a router as stored (the metrics and the console). */
  list(routerCode: string): Promise<RouteHealth[]> {
    return this.uow.retrying((manager) => manager.getRepository(RouteHealth).find({ where: { routerCode } }));
  }

  /** Stores the round-robin's current weights, inside the unit that read them. */
  async saveWeightsIn(
    manager: EntityManager,
    routerCode: string,
    weights: ReadonlyMap<string, number>,
    now: Date,
  ): Promise<void> {
    if (weights.size === 0) return;
    // One statement for all routes: gateway codes and weights are bound, never written into the SQL.
    const cases = [...weights].map(() => 'WHEN ? THEN ?').join(' ');
    await manager.query(
      `UPDATE route_health SET current_weight = CASE gateway_code ${cases} ELSE current_weight END, ` +
        `updated_at = ? WHERE router_code = ? AND gateway_code IN (${[...weights].map(() => '?').join(', ')})`,
      [
        ...[...weights].flatMap(([code, weight]) => [code, weight]),
        Dialect.of(manager).dateParam(now),
        routerCode,
        ...weights.keys(),
      ],
    );
  }

  /**
   * Takes the one trial of a route whose cooldown has passed: its circuit stays open (`until`) for
   * everyone else while this start decides. False when another choice took it first.
   */
  async takeTrial(routerCode: string, gatewayCode: string, now: Date, until: Date): Promise<boolean> {
    const result = await this.uow.retrying((manager) =>
      manager
        .createQueryBuilder()
        .update(RouteHealth)
        .set({ openUntil: until, updatedAt: now })
        .where('router_code = :routerCode AND gateway_code = :gatewayCode', { routerCode, gatewayCode })
        .andWhere('open_until IS NOT NULL AND open_until <= :now', {
          now: Dialect.of(manager).dateParam(now),
        })
        .execute(),
    );
    return (result.affected ?? 0) === 1;
  }

  /** A start succeeded: the circuit closes (no write when it was closed already). */
  async succeeded(routerCode: string, gatewayCode: string, now: Date): Promise<void> {
    await this.uow.retrying((manager) =>
      manager
        .createQueryBuilder()
        .update(RouteHealth)
        .set({ failures: 0, openUntil: null, updatedAt: now })
        .where('router_code = :routerCode AND gateway_code = :gatewayCode', { routerCode, gatewayCode })
        .andWhere('(failures > 0 OR open_until IS NOT NULL)')
        .execute(),
    );
  }

  /**
   * A start failed: one more failure in a row; the `threshold`-th (and every later one) opens the
   * circuit until `until`. One statement, whatever other replicas do meanwhile. True when the
   * circuit is open after it.
   */
  async failed(
    routerCode: string,
    gatewayCode: string,
    threshold: number,
    now: Date,
    until: Date,
  ): Promise<boolean> {
    return this.uow.retrying(async (manager) => {
      const dialect = Dialect.of(manager);
      // `open_until` first: MySQL evaluates a single-table UPDATE's assignments left to right, so
      // it must read `failures` before that is increased (SQLite reads the old row throughout).
      await manager.query(
        'UPDATE route_health SET open_until = CASE WHEN failures + 1 >= ? THEN ? ELSE open_until END, ' +
          'failures = failures + 1, updated_at = ? WHERE router_code = ? AND gateway_code = ?',
        [threshold, dialect.dateParam(until), dialect.dateParam(now), routerCode, gatewayCode],
      );
      const row = await manager.getRepository(RouteHealth).findOne({ where: { routerCode, gatewayCode } });
      return row !== null && row.failures >= threshold;
    });
  }
}

/** The circuit of `row` at `now`: closed (healthy), open (skipped) or ready for its one trial. */
export function routeState(row: RouteHealth | undefined, threshold: number, now: Date): RouteState {
  if (!row || row.failures < threshold || row.openUntil === null) return 'closed';
  return row.openUntil.getTime() > now.getTime() ? 'open' : 'trial';
}
