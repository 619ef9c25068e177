import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouteHealth } from './route-health.entity';
import { routeState } from './route-health.repository';
import { routerSettings, smoothWeightedPick } from './router-settings';

describe('routing gateways: settings, the weighted round-robin and the circuit (contract §21)', () => {
  it('reads a router’s stored settings with the defaults', () => {
    assert.deepEqual(routerSettings({ routes: [{ gateway: 'a' }, { gateway: 'b', weight: 30 }] }), {
      routes: [
        { gateway: 'a', weight: 1 },
        { gateway: 'b', weight: 30 },
      ],
      strategy: 'priority',
      failover: true,
      unhealthyAfter: 3,
      cooldownSeconds: 60,
    });
    const set = routerSettings({
      routes: [{ gateway: 'a' }],
      strategy: 'weighted',
      failover: false,
      unhealthy_after: 5,
      cooldown_seconds: 10,
    });
    assert.equal(set.strategy, 'weighted');
    assert.equal(set.failover, false);
    assert.equal(set.unhealthyAfter, 5);
    assert.equal(set.cooldownSeconds, 10);
    assert.deepEqual(routerSettings(null).routes, []);
  });

  it('the smooth weighted round-robin interleaves 70/30 exactly over every 10 picks', () => {
    let current = [0, 0];
    const picks: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const next = smoothWeightedPick([70, 30], current);
      current = next.current;
      picks.push(next.index);
    }
    assert.equal(picks.filter((index) => index === 0).length, 700);
    for (let start = 0; start < 1000; start += 10) {
      const window = picks.slice(start, start + 10);
      assert.equal(window.filter((index) => index === 0).length, 7, `picks ${start}–${start + 9}`);
    }
    // Never more than three of the 70 route in a row: interleaved, not in runs.
    assert.doesNotMatch(picks.join(''), /0000/);
  });

  it('a route’s circuit: closed below the threshold, open until its cooldown ends, then ready for one trial', () => {
    const now = new Date('2026-11-28T10:00:00Z');
    const row = (failures: number, openUntil: string | null): RouteHealth =>
      Object.assign(new Object() as RouteHealth, {
        routerCode: 'r',
        gatewayCode: 'a',
        failures,
        openUntil: openUntil ? new Date(openUntil) : null,
        currentWeight: 0,
        updatedAt: now,
      });
    assert.equal(routeState(undefined, 3, now), 'closed');
    assert.equal(routeState(row(2, null), 3, now), 'closed');
    assert.equal(routeState(row(3, '2026-11-28T10:00:30Z'), 3, now), 'open');
    assert.equal(routeState(row(3, '2026-11-28T10:00:00Z'), 3, now), 'trial');
    assert.equal(routeState(row(9, '2026-11-28T09:59:00Z'), 3, now), 'trial');
  });
});
