import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FailoverDriver, type PoolStatus } from './failover-pool';
import { UnitOfWork } from './unit-of-work';

/** A ping must answer within this long for the database to count as up. */
const PING_TIMEOUT_MS = 2000;
/** A request that gave up waiting for a connection this recently marks the replica not ready. */
const EXHAUSTION_WINDOW_MS = 5000;

export interface DatabaseReadiness {
  up: boolean;
  /** Why not (absent when up). */
  reason?: 'no-database' | 'pool-exhausted' | 'no-answer';
  /** MySQL: the node in use and the pool's state. */
  pool?: PoolStatus;
}

/**
 * Readiness of this replica's database access (contract §17): a database answers a ping in time, and
 * requests are not being turned away for want of a connection. Liveness never asks it.
 */
@Injectable()
export class DatabaseHealth {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
  ) {}

  /** Connections handed out and requests waiting for one (the embedded database: a pool of one). */
  usage(): { inUse: number; waiting: number } {
    const pool = this.poolStatus();
    if (pool) return { inUse: pool.inUse, waiting: pool.waiting };
    return this.uow.embeddedUsage() ?? { inUse: 0, waiting: 0 };
  }

  /** Statements cut for want of an answer in time, and nodes set aside, since start (MySQL; else 0). */
  faults(): { statementTimeouts: number; nodesSetAside: number } {
    const pool = this.poolStatus();
    return { statementTimeouts: pool?.statementTimeouts ?? 0, nodesSetAside: pool?.nodesSetAside ?? 0 };
  }

  async check(): Promise<DatabaseReadiness> {
    const pool = this.poolStatus();
    if (pool && pool.active === null) return { up: false, reason: 'no-database', pool };
    if (pool?.lastAcquireTimeoutAt && Date.now() - pool.lastAcquireTimeoutAt < EXHAUSTION_WINDOW_MS) {
      return { up: false, reason: 'pool-exhausted', pool };
    }
    if (!(await this.ping())) return { up: false, reason: 'no-answer', pool };
    return { up: true, pool };
  }

  private poolStatus(): PoolStatus | undefined {
    const driver = (this.dataSource.options as { driver?: unknown }).driver;
    return driver instanceof FailoverDriver ? (driver.pool?.status() ?? undefined) : undefined;
  }

  private async ping(): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
    });
    const answered = this.dataSource.query('SELECT 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([answered, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
