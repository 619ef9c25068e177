import 'reflect-metadata';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Test } from '@nestjs/testing';
import { AppConfig } from '../../config/app-config';
import { IntervalJob } from './interval-job';

/** A run the test ends (or fails) when it wants. */
class HeldRun {
  readonly done: Promise<void>;
  finish!: () => void;
  fail!: (error: Error) => void;
  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.finish = resolve;
      this.fail = reject;
    });
  }
}

/** Each run waits for the test to end it; the job notes when runs start and whether two overlap. */
@Injectable()
class ProbeJob extends IntervalJob {
  readonly held: HeldRun[] = [];
  inFlight = 0;
  overlapped = false;
  readonly stopWorkCalls: Promise<void>[] = [];

  constructor() {
    super('probe-job', (config) => config.dispatchIntervalMs);
  }

  /** The job's config, as the base was given it. */
  get injectedConfig(): AppConfig {
    return this.config;
  }

  protected async runOnce(): Promise<void> {
    const run = new HeldRun();
    this.held.push(run);
    this.inFlight++;
    if (this.inFlight > 1) this.overlapped = true;
    try {
      await run.done;
    } finally {
      this.inFlight--;
    }
  }

  protected override stopWork(runEnded: Promise<void>): Promise<void> {
    this.stopWorkCalls.push(runEnded);
    return Promise.resolve();
  }
}

/** The error lines logged (their message, the last argument before the context). */
const errors: unknown[][] = [];
const quietLogger: LoggerService = {
  log: () => undefined,
  warn: () => undefined,
  error: (...args: unknown[]) => void errors.push(args),
};

/** Resolves once `condition` holds (checked every few ms), or fails after a second. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 1000) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Lets pending promise callbacks and timers of 0 ms run. */
const settle = () => sleep(0);

describe('IntervalJob', () => {
  let app: INestApplicationContext | null = null;

  /** The job in a Nest context; its interval is `intervalMs`; started (bootstrapped) unless told not to. */
  async function startJob(intervalMs: number, { init = true } = {}): Promise<ProbeJob> {
    const moduleRef = await Test.createTestingModule({
      providers: [
        ProbeJob,
        SchedulerRegistry,
        { provide: AppConfig, useValue: { dispatchIntervalMs: intervalMs } },
      ],
    })
      .setLogger(quietLogger)
      .compile();
    app = moduleRef;
    if (init) await moduleRef.init();
    return moduleRef.get(ProbeJob);
  }

  afterEach(async () => {
    const job = app?.get(ProbeJob);
    for (const run of job?.held ?? []) run.finish();
    await app?.close();
    app = null;
  });

  it('registers its interval with the SchedulerRegistry under its name, from the injected config, and removes it on shutdown', async () => {
    const job = await startJob(3_600_000);
    const scheduler = app!.get(SchedulerRegistry);
    assert.deepEqual(scheduler.getIntervals(), ['probe-job']);
    assert.equal(job.injectedConfig.dispatchIntervalMs, 3_600_000);
    await app!.close();
    app = null;
    assert.deepEqual(scheduler.getIntervals(), []);
  });

  it('runs on every tick, and skips the ticks that come during a run', async () => {
    const job = await startJob(10);
    await until(() => job.held.length === 1, 'the first tick');
    await sleep(60); // several ticks while the run is held
    assert.equal(job.held.length, 1, 'no run beside the one in progress, none queued by the ticks');
    job.held[0].finish();
    await until(() => job.held.length === 2, 'a later tick');
    assert.equal(job.overlapped, false);
  });

  it('logs a failed run and runs again on a later tick', async () => {
    const job = await startJob(10);
    await until(() => job.held.length === 1, 'the first tick');
    errors.length = 0;
    job.held[0].fail(new Error('database down'));
    await until(() => job.held.length === 2, 'the next tick');
    assert.ok(
      errors.some((args) => args.some((a) => a === 'probe-job failed')),
      `the failure logged: ${JSON.stringify(errors)}`,
    );
  });

  it('runSoon starts a run at once when none is in progress', async () => {
    const job = await startJob(3_600_000);
    job.runSoon();
    assert.equal(job.held.length, 1);
  });

  it('runSoon during a run makes exactly one more run, right after it (several asks make one)', async () => {
    const job = await startJob(3_600_000);
    job.runSoon();
    job.runSoon();
    job.runSoon();
    await settle();
    assert.equal(job.held.length, 1, 'asks during a run wait for it');
    job.held[0].finish();
    await until(() => job.held.length === 2, 'the run asked for');
    job.held[1].finish();
    await sleep(20);
    assert.equal(job.held.length, 2, 'the asks made during one run make one run');
    assert.equal(job.overlapped, false);
  });

  it('runSoon is ignored before start-up and once shutdown began', async () => {
    const job = await startJob(3_600_000, { init: false });
    job.runSoon();
    assert.equal(job.held.length, 0, 'before start-up');
    await app!.init();
    await app!.close();
    app = null;
    job.runSoon();
    assert.equal(job.held.length, 0, 'after shutdown');
  });

  it('runNow waits for the run in progress, then runs, and resolves when its own run has ended', async () => {
    const job = await startJob(3_600_000);
    job.runSoon();
    let resolved = false;
    const now = job.runNow().then(() => (resolved = true));
    await settle();
    assert.equal(job.held.length, 1, 'not beside the run in progress');
    job.held[0].finish();
    await until(() => job.held.length === 2, 'the run asked for');
    await settle();
    assert.equal(resolved, false, 'its own run is still going');
    job.held[1].finish();
    await now;
    assert.equal(job.overlapped, false);
  });

  it('runNow rejects when its run fails', async () => {
    const job = await startJob(3_600_000);
    const now = job.runNow();
    await until(() => job.held.length === 1, 'the run');
    job.held[0].fail(new Error('no connection'));
    await assert.rejects(now, /no connection/);
  });

  it('on shutdown waits for the run in progress, hands stopWork its end, and starts nothing after it', async () => {
    const job = await startJob(10);
    job.runSoon();
    job.runSoon(); // asked for during the run: would follow it, but shutdown comes first
    const closing = app!.close();
    app = null;
    let closed = false;
    void closing.then(() => (closed = true));
    await sleep(40);
    assert.equal(closed, false, 'shutdown waits for the run');
    assert.equal(job.stopWorkCalls.length, 1);
    let runEnded = false;
    void job.stopWorkCalls[0].then(() => (runEnded = true));
    await settle();
    assert.equal(runEnded, false);
    job.held[0].finish();
    await closing;
    assert.equal(runEnded, true);
    await sleep(40);
    assert.equal(job.held.length, 1, 'no tick and no asked-for run after shutdown');
  });
});
