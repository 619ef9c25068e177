import { OnModuleDestroy, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config';
import { ExpiryService } from './expiry.service';

export const EXPIRY_INTERVAL_NAME = 'expiry-sweep';

/**
 * The scheduled shell of auto-expiry: every EXPIRY_SWEEP_SECONDS it asks {@link ExpiryService} for
 * a run. The interval comes from the config, so it is registered at start-up with the
 * SchedulerRegistry (a static `@Interval` could not read it). On shutdown the interval stops and
 * the batch in progress finishes.
 */
@Injectable()
export class ExpiryJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ExpiryJob');

  constructor(
    private readonly expiry: ExpiryService,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const timer = setInterval(() => this.tick(), this.config.expirySweepSeconds * 1000);
    timer.unref();
    this.scheduler.addInterval(EXPIRY_INTERVAL_NAME, timer);
  }

  /** The first shutdown hook: no new batch starts while other modules wind down. */
  async onModuleDestroy(): Promise<void> {
    if (this.scheduler.doesExist('interval', EXPIRY_INTERVAL_NAME)) {
      this.scheduler.deleteInterval(EXPIRY_INTERVAL_NAME);
    }
    await this.expiry.stop();
  }

  private tick(): void {
    this.expiry.runScheduled().catch((error: unknown) => {
      this.logger.error(`Expiry sweep failed: ${String(error)}`);
    });
  }
}
