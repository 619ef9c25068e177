import { Injectable } from '@nestjs/common';
import { IntervalJob } from '../common/jobs/interval-job';
import { ExpiryService } from './expiry.service';

export const EXPIRY_INTERVAL_NAME = 'expiry-sweep';

/**
 * The scheduled shell of auto-expiry: every EXPIRY_SWEEP_SECONDS it asks {@link ExpiryService} for
 * a run. On shutdown the interval stops and the batch in progress finishes.
 */
@Injectable()
export class ExpiryJob extends IntervalJob {
  constructor(private readonly expiry: ExpiryService) {
    super(EXPIRY_INTERVAL_NAME, (config) => config.expirySweepSeconds * 1000);
  }

  protected async runOnce(): Promise<void> {
    await this.expiry.runScheduled();
  }

  protected override stopWork(): Promise<void> {
    return this.expiry.stop();
  }
}
