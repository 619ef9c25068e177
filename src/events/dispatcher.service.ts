import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { SingleFlight } from '../common/jobs/single-flight';
import { AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import { DeliveriesRepository } from './deliveries.repository';
import type { Delivery, DeliveryStatus } from './delivery.entity';
import { DeliveryOutcome, failedOutcome } from './delivery-outcome';
import type { OutboxEvent } from './event.entity';
import { EmailSender } from './notifications/email-sender';
import { HttpSmsProvider } from './notifications/sms-provider';
import { renderMessage, templateValues } from './notifications/templates';
import { type ClaimedAtInsert, type Claimant, OutboxService } from './outbox.service';
import { WebhookSender } from './webhooks/webhook-sender';

const BATCH_SIZE = 20;
/** On shutdown, sends still running after this long are interrupted (and retried later). */
const SHUTDOWN_GRACE_MS = 4000;

/**
 * Sends due outbox rows (contract §6). Every replica runs one: rows are claimed in the database with
 * a lease, so two workers never send the same row at once and a crashed worker's rows are taken
 * over once its lease runs out. In-process, passes never overlap. It polls every
 * DISPATCH_INTERVAL_MS and is poked right after a commit that recorded events.
 */
@Injectable()
export class DispatcherService implements OnApplicationBootstrap, BeforeApplicationShutdown, Claimant {
  private readonly logger = new Logger('Dispatcher');
  /** Identifies this worker in `claimed_by`. */
  readonly workerId = `${hostname().slice(0, 24)}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private claims = 0;
  /** The pass in progress: passes never overlap in this process; shutdown stops and waits. */
  private readonly passes = new SingleFlight<number>();
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  /** Aborted when shutdown cannot wait any longer for the sends in flight (one listener per send). */
  private readonly interrupt = new AbortController();
  /** Deliveries claimed when they were written, being sent right after their commit. */
  private readonly direct = new Set<Promise<void>>();

  constructor(
    private readonly config: AppConfig,
    private readonly deliveries: DeliveriesRepository,
    private readonly outbox: OutboxService,
    private readonly webhooks: WebhookSender,
    private readonly email: EmailSender,
    private readonly sms: HttpSmsProvider,
    private readonly adminConfig: AdminConfigService,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // One listener per send in flight: passes send BATCH_SIZE at once, direct sends one per commit.
    setMaxListeners(0, this.interrupt.signal);
    this.started = true;
    // The unit of work runs commit callbacks outside the committed unit (contract §17).
    this.outbox.onCommitted(() => this.poke());
    this.outbox.setClaimant(this);
    if (!(await this.adminConfig.webhookSigningKey())) {
      this.logger.warn(
        'No webhook signing key (WEBHOOK_SIGNING_KEY or admin config): webhooks are sent unsigned.',
      );
    }
    this.schedule();
  }

  /**
   * Stops claiming; lets the sends in flight finish for a few seconds, then interrupts them (their
   * attempt is logged as interrupted and retried by any replica), so shutdown stays within 10 s
   * (contract §17) even when a receiver hangs.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.outbox.setClaimant(null);
    const passStopped = this.passes.stop(); // no new claims; resolves when the pass in progress ends
    const stopped = Promise.all([passStopped, ...this.direct]);
    if (!this.passes.running && this.direct.size === 0) return;
    let grace: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      stopped.then(() => true),
      new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(false), SHUTDOWN_GRACE_MS))),
    ]);
    clearTimeout(grace);
    if (!finished) this.interrupt.abort();
    await stopped;
  }

  /** Before start-up and once shutdown began: no pass claims anything. */
  private get idle(): boolean {
    return !this.started || this.passes.stopped;
  }

  /** A claim for deliveries about to be written (see {@link Claimant}); none once stopping. */
  claim(now: Date): { token: string; until: Date } | null {
    if (this.idle) return null;
    return { token: this.nextToken(), until: new Date(now.getTime() + this.config.dispatchLeaseMs) };
  }

  /** Sends deliveries claimed at insert, now that they are committed. */
  take({ event, deliveries }: ClaimedAtInsert): void {
    if (this.idle) return; // stopping: their lease runs out and a pass takes them over
    const sending = Promise.all(deliveries.map((d) => this.deliver(d, event)))
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error(`Direct delivery failed: ${String(error)}`))
      .finally(() => this.direct.delete(sending));
    this.direct.add(sending);
  }

  private nextToken(): string {
    return `${this.workerId}#${++this.claims}`.slice(-64);
  }

  /** Runs a pass soon (after a commit that recorded events). */
  poke(): void {
    if (this.idle) return;
    if (this.passes.running) {
      this.again = true;
      return;
    }
    this.dispatchDue().catch((error: unknown) => this.logger.error(`Dispatch failed: ${String(error)}`));
  }

  /**
   * One pass: claims due deliveries in batches and sends them until none is due. Waits for a
   * pass already running in this process instead of overlapping it. Returns how many were sent.
   */
  dispatchDue(): Promise<number> {
    return this.passes
      .runAfter(() => this.drain())
      .finally(() => {
        if (this.again && !this.idle) {
          this.again = false;
          this.poke();
        }
      });
  }

  private schedule(): void {
    if (this.idle) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.passes.running) this.again = true;
      else this.poke();
      this.schedule();
    }, this.config.dispatchIntervalMs);
    this.timer.unref();
  }

  private async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      if (this.idle) return total; // shutting down: finish what is in flight, claim nothing new
      const token = this.nextToken();
      const now = new Date();
      const claimed = await this.deliveries.claimDue(
        token,
        now,
        new Date(now.getTime() + this.config.dispatchLeaseMs),
        BATCH_SIZE,
      );
      if (claimed.length === 0) return total;
      const events = new Map(
        (await this.deliveries.eventsByRowIds([...new Set(claimed.map((d) => d.eventRowId))])).map((e) => [
          e.id,
          e,
        ]),
      );
      await Promise.all(claimed.map((d) => this.deliver(d, events.get(d.eventRowId))));
      total += claimed.length;
      if (claimed.length < BATCH_SIZE) return total;
    }
  }

  private async deliver(delivery: Delivery, event: OutboxEvent | undefined): Promise<void> {
    const attemptedAt = new Date();
    const started = process.hrtime.bigint();
    let outcome: DeliveryOutcome;
    try {
      outcome = event ? await this.send(delivery, event) : failedOutcome('The event is missing', false);
    } catch (error) {
      outcome = failedOutcome(error instanceof Error ? error.message : String(error), true);
    }
    const durationMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
    const { status, nextAttemptAt } = this.nextStep(delivery, outcome, new Date());
    await this.deliveries.finish(delivery, { outcome, attemptedAt, durationMs, status, nextAttemptAt });
    const result = status === 'pending' ? 'retry' : status;
    this.metrics.deliveries.inc({ channel: delivery.channel, result });
    if (status === 'failed') {
      this.logger.warn(
        `Delivery ${delivery.id} (${delivery.channel}) failed after ${delivery.attempts + 1} attempt(s): ${outcome.error ?? ''}`,
      );
    }
  }

  private async send(delivery: Delivery, event: OutboxEvent): Promise<DeliveryOutcome> {
    switch (delivery.channel) {
      case 'webhook':
        return this.webhooks.send(event, delivery.target, this.interrupt.signal);
      case 'email':
        return this.email.send(
          delivery.target,
          renderMessage(event.event, event.context.language, templateValues(event.payload, event.context)),
        );
      case 'sms': {
        const message = renderMessage(
          event.event,
          event.context.language,
          templateValues(event.payload, event.context),
        );
        return this.sms.send(
          {
            to: delivery.target,
            body: message.text,
            meta: { event: event.event, session_id: event.sessionId, language: event.context.language },
          },
          this.interrupt.signal,
        );
      }
    }
  }

  /**
   * Retry policy (contract §6): delivered on success; retryable failures wait the next delay of
   * WEBHOOK_RETRY_SCHEDULE (the last one repeats) while the delivery is younger than
   * WEBHOOK_MAX_AGE_SECONDS; anything else fails for good.
   */
  private nextStep(
    delivery: Delivery,
    outcome: DeliveryOutcome,
    now: Date,
  ): { status: DeliveryStatus; nextAttemptAt: Date } {
    if (outcome.ok) return { status: 'delivered', nextAttemptAt: now };
    if (!outcome.retryable) return { status: 'failed', nextAttemptAt: now };
    const delays = this.config.webhookRetryDelaysMs;
    const delay = delays[Math.min(delivery.attempts, delays.length - 1)];
    const next = new Date(now.getTime() + delay);
    const deadline = delivery.createdAt.getTime() + this.config.webhookMaxAgeSeconds * 1000;
    if (next.getTime() > deadline) return { status: 'failed', nextAttemptAt: now };
    return { status: 'pending', nextAttemptAt: next };
  }
}
