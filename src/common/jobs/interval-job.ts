import { Inject, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../../config/app-config';
import { SingleFlight } from './single-flight';

/**
 * A job that runs every few milliseconds or seconds on every replica: registered with the
 * SchedulerRegistry at start-up (its interval comes from the config, so a static `@Interval` cannot
 * be used), never overlapping itself (a tick during a run is skipped), and stopped first on
 * shutdown, waiting for the run in progress. A failed run is logged; the next tick tries again.
 *
 * Besides its ticks, a job runs when asked: {@link runSoon} starts a run now, or right after the
 * one in progress; {@link runNow} runs one and waits for it.
 *
 * A subclass names the job, says how often it runs and what one run does; the scheduler and the
 * config are injected here, as properties (set before any lifecycle hook, not yet in a
 * constructor).
 */
export abstract class IntervalJob implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  @Inject(SchedulerRegistry) private readonly scheduler!: SchedulerRegistry;
  /** The application's config (subclasses read theirs here too). */
  @Inject(AppConfig) protected readonly config!: AppConfig;
  private readonly runs = new SingleFlight();
  private started = false;
  /** A run was asked for while one was in progress: one more follows it. */
  private again = false;

  protected constructor(
    /** The interval's name in the SchedulerRegistry (and the logger's context). */
    readonly jobName: string,
    /** Milliseconds between ticks. */
    private readonly everyMs: (config: AppConfig) => number,
  ) {
    this.logger = new Logger(jobName);
  }

  /** One run of the job. */
  protected abstract runOnce(): Promise<void>;

  /**
   * Stops the job's own work in progress on shutdown, beside waiting for the run: `runEnded`
   * resolves once the run in progress (if any) has ended.
   */
  protected stopWork(_runEnded: Promise<void>): Promise<void> {
    return Promise.resolve();
  }

  /** From start-up until shutdown begins: the job may take on work. */
  protected get active(): boolean {
    return this.started && !this.runs.stopped;
  }

  /** Starts the ticks (a subclass that overrides it calls it). */
  onApplicationBootstrap(): Promise<void> {
    this.started = true;
    const timer = setInterval(() => this.tick(), this.everyMs(this.config));
    timer.unref();
    this.scheduler.addInterval(this.jobName, timer);
    return Promise.resolve();
  }

  /** The first shutdown hook: no new run starts while other modules wind down. */
  async onModuleDestroy(): Promise<void> {
    if (this.scheduler.doesExist('interval', this.jobName)) this.scheduler.deleteInterval(this.jobName);
    const runEnded = this.runs.stop();
    await Promise.all([runEnded, this.stopWork(runEnded)]);
  }

  /**
   * Asks for a run soon: it starts now, or once the run in progress has ended (the asks made during
   * one run make one more run). Ignored before start-up and once shutdown began.
   */
  runSoon(): void {
    if (!this.active) return;
    if (this.runs.running) this.again = true;
    else this.tick();
  }

  /**
   * Runs the job now — after the run in progress, never beside it — and resolves when that run
   * has ended; rejects when it failed.
   */
  async runNow(): Promise<void> {
    try {
      await this.runs.runAfter(() => this.runOnce());
    } finally {
      this.followUp();
    }
  }

  private tick(): void {
    const run = this.runs.tryRun(() =>
      this.runOnce().catch((error: unknown) => this.logger.error({ err: error }, `${this.jobName} failed`)),
    );
    void run?.then(() => this.followUp());
  }

  /** Starts the run asked for during the one that just ended. */
  private followUp(): void {
    if (!this.again) return;
    this.again = false;
    this.runSoon();
  }
}
