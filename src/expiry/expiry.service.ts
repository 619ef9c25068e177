import { Injectable, Logger } from '@nestjs/common';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { SingleFlight } from '../common/jobs/single-flight';
import { Metrics } from '../metrics/metrics';
import { TransitionService } from '../transactions/transition.service';

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
    private readonly adminConfig: AdminConfigService,
    private readonly metrics: Metrics,
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
        const batch = await this.transitions.expireDueBatch(now, batchSize);
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
}
