import { Injectable } from '@nestjs/common';
import { IntervalJob } from '../common/jobs/interval-job';
import { AttemptSettlement } from './attempt-settlement';
import { OperationSettlement } from './operation-settlement';

export const RECONCILE_INTERVAL_NAME = 'payment-reconcile';

/**
 * The scheduled shell of the payment reconciler (contract §17, §20): every PAYMENT_RECONCILE_SECONDS
 * it settles attempts left unfinished, then finishes provider operations (capture, void, refund)
 * left pending. Several replicas may run at once (settling is conditional; one replica at a time
 * calls a provider about an operation).
 */
@Injectable()
export class ReconcilerJob extends IntervalJob {
  constructor(
    private readonly settlement: AttemptSettlement,
    private readonly operations: OperationSettlement,
  ) {
    super(RECONCILE_INTERVAL_NAME, (config) => config.paymentReconcileSeconds * 1000);
  }

  protected async runOnce(): Promise<void> {
    // Attempts that cannot be settled now never hold back the operations.
    try {
      await this.settlement.reconcile();
    } finally {
      await this.operations.reconcile();
    }
  }
}
