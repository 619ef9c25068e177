import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { AdminConfigService } from '../admin-config/admin-config.service';
import { IntervalJob } from '../common/jobs/interval-job';
import { Metrics } from '../metrics/metrics';
import { DeliveriesRepository } from './deliveries.repository';
import type { Delivery, DeliveryStatus } from './delivery.entity';
import type { ClaimedAtInsert, DeliveryClaim, DeliveryDispatch } from './delivery-dispatch';
import { DeliveryOutcome, failedOutcome } from './delivery-outcome';
import type { OutboxEvent } from './event.entity';
import { EmailSender } from './notifications/email-sender';
import { HttpSmsProvider } from './notifications/sms-provider';
import { renderMessage, templateValues } from './notifications/templates';
import { WebhookSender } from './webhooks/webhook-sender';

export const DISPATCH_INTERVAL_NAME = 'outbox-dispatch';
const BATCH_SIZE = 20;
/** On shutdown, sends still running after this long are interrupted (and retried later). */
const SHUTDOWN_GRACE_MS = 4000;

/**
 * Sends due outbox rows (contract §6). Every replica runs one: rows are claimed in the database with
 * a lease, so two workers never send the same row at once and a crashed worker's rows are taken
 * over once its lease runs out. Its pass is an {@link IntervalJob}: every DISPATCH_INTERVAL_MS,
 * never overlapping itself, and run soon after a commit that recorded unclaimed deliveries
 * ({@link poke}). Deliveries the outbox wrote claimed by it ({@link claim}) are sent right after
 * their commit ({@link take}), beside the passes. The outbox and redeliveries reach it through
 * the `DELIVERY_DISPATCH` token.
 */
@Injectable()
export class DispatcherService extends IntervalJob implements DeliveryDispatch {
  /** Identifies this worker in `claimed_by`. */
  readonly workerId = `${hostname().slice(0, 24)}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private claims = 0;
  /** Aborted when shutdown cannot wait any longer for the sends in flight (one listener per send). */
  private readonly interrupt = new AbortController();
  /** Deliveries claimed when they were written, being sent right after their commit. */
  private readonly direct = new Set<Promise<void>>();

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly webhooks: WebhookSender,
    private readonly email: EmailSender,
    private readonly sms: HttpSmsProvider,
    private readonly adminConfig: AdminConfigService,
    private readonly metrics: Metrics,
  ) {
    super(DISPATCH_INTERVAL_NAME, (config) => config.dispatchIntervalMs);
  }

  override async onApplicationBootstrap(): Promise<void> {
    // One listener per send in flight: passes send BATCH_SIZE at once, direct sends one per commit.
    setMaxListeners(0, this.interrupt.signal);
    await super.onApplicationBootstrap();
    if (!(await this.adminConfig.webhookSigningKey())) {
      this.logger.warn(
        'No webhook signing key (WEBHOOK_SIGNING_KEY or admin config): webhooks are sent unsigned.',
      );
    }
  }

  /**
   * Once the pass stops claiming (the job's shutdown): lets the sends in flight finish for a few
   * seconds, then interrupts them (their attempt is logged as interrupted and retried by any
   * replica), so shutdown stays within 10 s (contract §17) even when a receiver hangs.
   */
  protected override async stopWork(passEnded: Promise<void>): Promise<void> {
    const stopped = Promise.all([passEnded, ...this.direct]);
    let grace: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      stopped.then(() => true),
      new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(false), SHUTDOWN_GRACE_MS))),
    ]);
    clearTimeout(grace);
    if (!finished) this.interrupt.abort();
    await stopped;
  }

  /** A claim for deliveries about to be written; none before start-up or once stopping. */
  claim(now: Date): DeliveryClaim | null {
    if (!this.active) return null;
    return { token: this.nextToken(), until: new Date(now.getTime() + this.config.dispatchLeaseMs) };
  }

  /** Sends deliveries claimed at insert, now that they are committed. */
  take({ event, deliveries }: ClaimedAtInsert): void {
    if (!this.active) return; // stopping: their lease runs out and a pass takes them over
    const sending = Promise.all(deliveries.map((d) => this.deliver(d, event)))
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error(`Direct delivery failed: ${String(error)}`))
      .finally(() => this.direct.delete(sending));
    this.direct.add(sending);
  }

  /** Runs a pass soon (after a commit that recorded unclaimed deliveries, or a redelivery). */
  poke(): void {
    this.runSoon();
  }

  /**
   * One pass now, after the pass already running in this process (never beside it); resolves
   * when it has ended.
   */
  dispatchDue(): Promise<void> {
    return this.runNow();
  }

  private nextToken(): string {
    return `${this.workerId}#${++this.claims}`.slice(-64);
  }

  /** One pass: claims due deliveries in batches and sends them until none is due. */
  protected async runOnce(): Promise<void> {
    for (;;) {
      if (!this.active) return; // shutting down: finish what is in flight, claim nothing new
      const token = this.nextToken();
      const now = new Date();
      const claimed = await this.deliveries.claimDue(
        token,
        now,
        new Date(now.getTime() + this.config.dispatchLeaseMs),
        BATCH_SIZE,
      );
      if (claimed.length === 0) return;
      const events = new Map(
        (await this.deliveries.eventsByRowIds([...new Set(claimed.map((d) => d.eventRowId))])).map((e) => [
          e.id,
          e,
        ]),
      );
      await Promise.all(claimed.map((d) => this.deliver(d, events.get(d.eventRowId))));
      if (claimed.length < BATCH_SIZE) return;
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
