import { Injectable } from '@nestjs/common';
import { IntervalJob } from '../common/jobs/interval-job';
import { AttemptSettlement } from './attempt-settlement';

export const RECONCILE_INTERVAL_NAME = 'payment-reconcile';

/**
 * The scheduled shell of the payment reconciler (contract §17): every PAYMENT_RECONCILE_SECONDS it
 * settles attempts left unfinished. Several replicas may run at once (settling is conditional).
 */
@Injectable()
export class ReconcilerJob extends IntervalJob {
  constructor(private readonly settlement: AttemptSettlement) {
    super(RECONCILE_INTERVAL_NAME, (config) => config.paymentReconcileSeconds * 1000);
  }

  protected async runOnce(): Promise<void> {
    await this.settlement.reconcile();
  }
}
