import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { SingleFlight } from './single-flight';

/**
 * A job that runs every few seconds on every replica: registered with the SchedulerRegistry at
 * start-up (its interval comes from the config, so a static `@Interval` cannot be used), never
 * overlapping itself (a tick during a run is skipped), and stopped first on shutdown, waiting
 * for the run in progress. A failed run is logged; the next tick tries again.
 */
export abstract class IntervalJob implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private readonly runs = new SingleFlight();

  protected constructor(
    /** The interval's name in the SchedulerRegistry (and the logger's context). */
    readonly jobName: string,
    private readonly scheduler: SchedulerRegistry,
  ) {
    this.logger = new Logger(jobName);
  }

  /** Milliseconds between ticks. */
  protected abstract intervalMs(): number;

  /** One run of the job. */
  protected abstract runOnce(): Promise<void>;

  /** Stops the job's own work in progress on shutdown (beyond waiting for the run). */
  protected stopWork(): Promise<void> {
    return Promise.resolve();
  }

  onApplicationBootstrap(): void {
    const timer = setInterval(() => this.tick(), this.intervalMs());
    timer.unref();
    this.scheduler.addInterval(this.jobName, timer);
  }

  /** The first shutdown hook: no new run starts while other modules wind down. */
  async onModuleDestroy(): Promise<void> {
    if (this.scheduler.doesExist('interval', this.jobName)) this.scheduler.deleteInterval(this.jobName);
    await Promise.all([this.runs.stop(), this.stopWork()]);
  }

  private tick(): void {
    void this.runs.tryRun(() =>
      this.runOnce().catch((error: unknown) => this.logger.error({ err: error }, `${this.jobName} failed`)),
    );
  }
}
