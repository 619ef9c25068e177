import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { IntervalJob } from '../common/jobs/interval-job';
import { AppConfig } from '../config/app-config';
import { AttemptSettlement } from './attempt-settlement';

export const RECONCILE_INTERVAL_NAME = 'payment-reconcile';

/**
 * The scheduled shell of the payment reconciler (contract §17): every PAYMENT_RECONCILE_SECONDS it
 * settles attempts left unfinished. Several replicas may run at once (settling is conditional).
 */
@Injectable()
export class ReconcilerJob extends IntervalJob {
  constructor(
    private readonly settlement: AttemptSettlement,
    private readonly config: AppConfig,
    scheduler: SchedulerRegistry,
  ) {
    super(RECONCILE_INTERVAL_NAME, scheduler);
  }

  protected intervalMs(): number {
    return this.config.paymentReconcileSeconds * 1000;
  }

  protected async runOnce(): Promise<void> {
    await this.settlement.reconcile();
  }
}
