import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a fast retrieve (a few ms) to a slow gateway call. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SWEEP_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * This replica's Prometheus registry (contract §18), one per application (tests run several in one
 * process, so never prom-client's global one). The instruments that code pushes to live here;
 * the ones read at scrape time (pool, outbox backlog) are added by the module that owns the data,
 * through {@link Metrics.gauge}.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  /** By the route's pattern (`/…/pymt-txn/:session_id`), never the raw path: bounded series. */
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, and how long they took',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  readonly deliveries = new Counter({
    name: 'checkout_deliveries_total',
    help: 'Outbox delivery attempts by channel and result (delivered, retry: will be tried again, failed: given up)',
    labelNames: ['channel', 'result'] as const,
    registers: [this.registry],
  });

  readonly expirySweepDuration = new Histogram({
    name: 'checkout_expiry_sweep_duration_seconds',
    help: 'How long each expiry sweep of this replica took',
    buckets: SWEEP_BUCKETS,
    registers: [this.registry],
  });

  readonly expired = new Counter({
    name: 'checkout_expired_transactions_total',
    help: 'Transactions moved to expired by this replica’s expiry sweeps',
    registers: [this.registry],
  });

  readonly transitions = new Counter({
    name: 'checkout_state_transitions_total',
    help: 'Transaction state changes by trigger and resulting state',
    labelNames: ['trigger', 'to'] as const,
    registers: [this.registry],
  });

  /**
   * Payment attempts whose provider took money our transaction does not show, or the reverse
   * (contract §20.1 reconciliation): each is also an error log line with its reference.
   */
  readonly reconciliationMismatches = new Counter({
    name: 'checkout_reconciliation_mismatches_total',
    help: 'Payment attempts whose provider outcome does not match the transaction (a person must look)',
    labelNames: ['gateway'] as const,
    registers: [this.registry],
  });

  /** Route decisions of routing gateways (contract §21): started, unavailable, skipped_unhealthy. */
  readonly routeAttempts = new Counter({
    name: 'checkout_route_attempts_total',
    help: 'Route decisions of routing gateways by router, member gateway and outcome',
    labelNames: ['router', 'gateway', 'outcome'] as const,
    registers: [this.registry],
  });

  /** 1 while a route's circuit is closed (or ready for its trial), 0 while it is skipped, as this replica last saw it. */
  readonly routeHealthy = new Gauge({
    name: 'checkout_route_healthy',
    help: 'Whether a routing gateway sends payments to a member gateway (1) or skips it as unhealthy (0)',
    labelNames: ['router', 'gateway'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose values `collect` sets at every scrape (it may query the database). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        return collect(this);
      },
    });
  }

  /** A counter that mirrors a running total kept elsewhere (read at every scrape). */
  counterOf(name: string, help: string, total: () => number): Counter {
    return new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(total());
      },
    });
  }

  /** The Prometheus text exposition of every series. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
