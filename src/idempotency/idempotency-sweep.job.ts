import { Injectable } from '@nestjs/common';
import { IntervalJob } from '../common/jobs/interval-job';
import { IdempotencyService } from './idempotency.service';

const SWEEP_INTERVAL_MS = 15 * 60 * 1000;

/** Every 15 minutes each replica deletes the keys older than 24 h (contract §11); overlap is harmless. */
@Injectable()
export class IdempotencySweepJob extends IntervalJob {
  constructor(private readonly idempotency: IdempotencyService) {
    super('idempotency-key-sweep', () => SWEEP_INTERVAL_MS);
  }

  protected async runOnce(): Promise<void> {
    const deleted = await this.idempotency.sweepExpired();
    if (deleted > 0) this.logger.log({ deleted }, 'Swept expired idempotency keys');
  }
}
