import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config';
import { AttemptSettlement } from './attempt-settlement';

export const RECONCILE_INTERVAL_NAME = 'payment-reconcile';

/**
 * The scheduled shell of the payment reconciler (SPEC §17): every PAYMENT_RECONCILE_SECONDS it
 * settles attempts left unfinished. Runs never overlap in one process; several replicas may run
 * at once (settling is conditional). On shutdown the interval stops and a run in progress ends.
 */
@Injectable()
export class ReconcilerJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Payments');
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly settlement: AttemptSettlement,
    private readonly scheduler: SchedulerRegistry,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const timer = setInterval(() => this.tick(), this.config.paymentReconcileSeconds * 1000);
    timer.unref();
    this.scheduler.addInterval(RECONCILE_INTERVAL_NAME, timer);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.scheduler.doesExist('interval', RECONCILE_INTERVAL_NAME)) {
      this.scheduler.deleteInterval(RECONCILE_INTERVAL_NAME);
    }
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.settlement
      .reconcile()
      .catch((error: unknown) => this.logger.error({ err: error }, 'Payment reconciliation failed'))
      .finally(() => {
        this.running = null;
      });
  }
}
