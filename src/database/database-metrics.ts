import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics';
import { DatabaseHealth } from './database-health';
import { UnitOfWork } from './unit-of-work';

/** The data layer as operators watch it (contract §18): the pool and the unit-of-work retries. */
@Injectable()
export class DatabaseMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly health: DatabaseHealth,
    private readonly uow: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge(
      'checkout_db_pool_connections',
      'Database connections of this replica in use, and requests waiting for one',
      ['state'],
      (gauge) => {
        const { inUse, waiting } = this.health.usage();
        gauge.set({ state: 'in_use' }, inUse);
        gauge.set({ state: 'waiting' }, waiting);
      },
    );
    this.metrics.counterOf(
      'checkout_db_statement_timeouts_total',
      'Database statements that got no answer within DB_QUERY_TIMEOUT_MS (or what their unit of work had left): their connections were cut',
      () => this.health.faults().statementTimeouts,
    );
    this.metrics.counterOf(
      'checkout_db_nodes_set_aside_total',
      'Times a database server of DATABASE_URL was set aside (failed, hung, or a statement got no answer in time)',
      () => this.health.faults().nodesSetAside,
    );
    this.metrics.counterOf(
      'checkout_unit_of_work_retries_total',
      'Units of work run again after a deadlock, lock wait timeout or Galera certification conflict',
      () => this.uow.stats.retries,
    );
    this.metrics.counterOf(
      'checkout_unit_of_work_exhausted_total',
      'Units of work that gave up (503) after repeated conflicts or at their time limit',
      () => this.uow.stats.exhausted,
    );
  }
}
