import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics';
import { DeliveriesRepository } from './deliveries.repository';
import { DELIVERY_CHANNELS } from './delivery.entity';

/**
 * The outbox as operators watch it (contract §18): pending deliveries and the age of the oldest one,
 * per channel, read from the database at each scrape (one grouped query over the pending rows,
 * which the status index finds). A channel with nothing pending reads 0.
 */
@Injectable()
export class OutboxMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly deliveries: DeliveriesRepository,
  ) {}

  onModuleInit(): void {
    let reading: ReturnType<DeliveriesRepository['backlog']> | null = null;
    // Both gauges come from one query per scrape.
    const backlog = () => (reading ??= this.deliveries.backlog().finally(() => (reading = null)));
    this.metrics.gauge(
      'checkout_outbox_backlog',
      'Deliveries waiting to be sent (pending), per channel',
      ['channel'],
      async (gauge) => {
        const rows = await backlog();
        for (const channel of DELIVERY_CHANNELS) {
          gauge.set({ channel }, rows.find((r) => r.channel === channel)?.pending ?? 0);
        }
      },
    );
    this.metrics.gauge(
      'checkout_outbox_oldest_pending_age_seconds',
      'Age of the oldest pending delivery, per channel (0 when none is pending)',
      ['channel'],
      async (gauge) => {
        const rows = await backlog();
        const now = Date.now();
        for (const channel of DELIVERY_CHANNELS) {
          const oldest = rows.find((r) => r.channel === channel)?.oldest;
          gauge.set({ channel }, oldest ? Math.max(now - oldest.getTime(), 0) / 1000 : 0);
        }
      },
    );
  }
}
