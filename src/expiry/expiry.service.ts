import { Injectable, Logger } from '@nestjs/common';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { SingleFlight } from '../common/jobs/single-flight';
import { Metrics } from '../metrics/metrics';
import { UnitOfWork } from '../database/unit-of-work';
import { TransactionsService } from '../transactions/transactions.service';
import { RacedBatch, TransitionService } from '../transactions/transition.service';

/** Rows per batch: one DB transaction, one UPDATE, one multi-row INSERT of events. */
export const EXPIRY_BATCH_SIZE = 500;

export interface SweepOptions {
  /** Rows per batch (default {@link EXPIRY_BATCH_SIZE}). */
  batchSize?: number;
  /** The instant deadlines are compared with (default: when the sweep starts). */
  now?: Date;
}

export interface SweepResult {
  /** Transactions this sweep moved to `expired` (each with its `expired` event). */
  expired: number;
  batches: number;
}

/**
 * Auto-expiry (contract §7): moves payable transactions past their deadline to `expired` in batches,
 * through the state machine. Safe on several replicas at once (each batch claims its rows in the
 * database) and never overlapping itself in one process.
 */
@Injectable()
export class ExpiryService {
  private readonly logger = new Logger('Expiry');
  private readonly sweeps = new SingleFlight<SweepResult>();

  constructor(
    private readonly transitions: TransitionService,
    private readonly transactions: TransactionsService,
    private readonly adminConfig: AdminConfigService,
    private readonly metrics: Metrics,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * The scheduled run: sweeps only while `auto_expire` is on, read from the stored config on every
   * run, so a toggle reaches every replica within one interval. Skipped (null) when a sweep of this
   * process is still running or the service is stopping.
   */
  async runScheduled(): Promise<SweepResult | null> {
    if (this.sweeps.running || this.sweeps.stopped) return null;
    if (!(await this.adminConfig.get()).autoExpire) return null;
    return this.sweeps.tryRun(() => this.drain({}));
  }

  /**
   * Expires every payable transaction due at `options.now`, batch after batch, until none is left
   * that another replica is not already holding. A call while a sweep runs in this process waits
   * for it and then sweeps again (it never runs beside it).
   */
  sweep(options: SweepOptions = {}): Promise<SweepResult> {
    return this.sweeps.runAfter(() => this.drain(options));
  }

  /** Stops after the batch in progress (graceful shutdown) and waits for it. */
  stop(): Promise<void> {
    return this.sweeps.stop();
  }

  get isRunning(): boolean {
    return this.sweeps.running;
  }

  private async drain(options: SweepOptions): Promise<SweepResult> {
    const batchSize = options.batchSize ?? EXPIRY_BATCH_SIZE;
    const now = options.now ?? new Date();
    const result: SweepResult = { expired: 0, batches: 0 };
    const timer = this.metrics.expirySweepDuration.startTimer();
    try {
      while (!this.sweeps.stopped) {
        const batch = await this.expireBatch(now, batchSize);
        if (batch.claimed === 0) break;
        result.batches++;
        result.expired += batch.expired;
        this.metrics.expired.inc(batch.expired);
      }
    } finally {
      timer();
    }
    if (result.expired > 0) {
      this.logger.log(`Expired ${result.expired} overdue transaction(s) in ${result.batches} batch(es)`);
    }
    return result;
  }

  /**
   * One batch in one unit of work ({@link TransitionService.expireDueBatch}). READ COMMITTED (every
   * session): the claim takes no gap locks, so it never blocks new transactions. A batch whose
   * UPDATE did not change every row it claimed is rolled back and its rows expired one by one, each
   * in a unit of its own.
   */
  private async expireBatch(now: Date, limit: number): Promise<{ claimed: number; expired: number }> {
    try {
      return await this.uow.run((manager) => this.transitions.expireDueBatch(manager, now, limit));
    } catch (error) {
      if (!(error instanceof RacedBatch)) throw error;
      let expired = 0;
      for (const tx of await this.transactions.findByIds(error.ids)) {
        if (await this.uow.run((manager) => this.transitions.expireIfDueIn(manager, tx, now))) expired++;
      }
      return { claimed: error.ids.length, expired };
    }
  }
}
