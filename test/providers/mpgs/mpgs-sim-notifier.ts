import { randomUUID } from 'node:crypto';

/**
 * The simulator's webhook notifications: after a transaction is created, the RETRIEVE TRANSACTION
 * answer is POSTed to the order's `notificationUrl` with `X-Notification-Secret`,
 * `X-Notification-Id` and `X-Notification-Attempt`; a delivery that does not get a 2xx is tried
 * again with the same id
 * (https://developer.mastercard.com/mastercard-gateway/documentation/gateway-features/webhook-noti/).
 *
 * Tests steer delivery: drop, hold (and release later, in reverse for reordering), duplicate,
 * delay, or forge (a wrong secret).
 */
export interface NotificationControls {
  /** `send` (default), `drop` (never sent), or `hold` (kept until {@link MpgsNotifier.releaseHeld}). */
  mode: 'send' | 'drop' | 'hold';
  /** Extra deliveries of each notification, same id, attempt numbers going up. */
  duplicates: number;
  /** Wait before each delivery. */
  delayMs: number;
  /** Send a wrong `X-Notification-Secret`. */
  forge: boolean;
  /** Deliveries tried per notification while the receiver does not answer 2xx. */
  maxAttempts: number;
  retryDelayMs: number;
}

export interface NotificationRecord {
  id: string;
  attempt: number;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** HTTP status of the receiver's answer, or null when the request failed. */
  status: number | null;
  error: string | null;
}

interface Pending {
  id: string;
  url: string;
  body: string;
}

export class MpgsNotifier {
  controls: NotificationControls = {
    mode: 'send',
    duplicates: 0,
    delayMs: 0,
    forge: false,
    maxAttempts: 3,
    retryDelayMs: 50,
  };
  /** Every delivery attempt, in the order they ended. */
  readonly deliveries: NotificationRecord[] = [];
  private held: Pending[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly secret: () => string) {}

  /** Queues one notification for `url` (nothing when the order has no notification URL). */
  notify(url: string | null, body: string): void {
    if (!url || this.controls.mode === 'drop') return;
    const pending = { id: randomUUID(), url, body };
    if (this.controls.mode === 'hold') this.held.push(pending);
    else this.dispatch(pending);
  }

  /** Notifications kept by `hold`. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Sends the held notifications, oldest first or (`reverse`) newest first. */
  releaseHeld(options: { reverse?: boolean } = {}): void {
    const held = options.reverse ? [...this.held].reverse() : this.held;
    this.held = [];
    for (const pending of held) this.dispatch(pending);
  }

  /** Resolves when every delivery started so far has ended. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** POSTs `body` once to `url` with the given secret: for forged or hand-made notifications. */
  async deliverRaw(
    url: string,
    body: string,
    secret: string,
    id: string = randomUUID(),
    attempt = 1,
  ): Promise<NotificationRecord> {
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Notification-Secret': secret,
      'X-Notification-Id': id,
      'X-Notification-Attempt': String(attempt),
    };
    const record: NotificationRecord = { id, attempt, url, headers, body, status: null, error: null };
    try {
      const answer = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10000) });
      await answer.arrayBuffer();
      record.status = answer.status;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
    }
    this.deliveries.push(record);
    return record;
  }

  private dispatch(pending: Pending): void {
    const { duplicates, delayMs, forge, maxAttempts, retryDelayMs } = this.controls;
    const run = async () => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const secret = forge ? `forged-${randomUUID()}` : this.secret();
      let attempt = 0;
      for (; attempt < maxAttempts;) {
        attempt++;
        const record = await this.deliverRaw(pending.url, pending.body, secret, pending.id, attempt);
        if (record.status !== null && record.status >= 200 && record.status < 300) break;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
      }
      for (let copy = 0; copy < duplicates; copy++) {
        await this.deliverRaw(pending.url, pending.body, secret, pending.id, ++attempt);
      }
    };
    const promise = run().finally(() => this.inFlight.delete(promise));
    this.inFlight.add(promise);
  }
}
