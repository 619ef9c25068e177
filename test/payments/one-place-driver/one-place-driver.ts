import { Injectable } from '@nestjs/common';
import {
  type AttemptOutcome,
  type Completion,
  type CompleteInput,
  type FollowUpInput,
  type FollowUpOutcome,
  type InquiryAnswer,
  type InquiryInput,
  type ProviderData,
  type ProviderNotification,
  type ProviderOutcome,
  type RedirectDriver,
  type StartInput,
  type StartResult,
  UnverifiedNotification,
} from '../../../src/payments/adapters/gateway-adapter';
import { ProviderDriver } from '../../../src/payments/drivers/provider-driver';
import { ONE_PLACE_CATALOGUE } from './one-place.catalogue';

/**
 * The smallest redirect driver (contract §20's seam, nothing else): its "provider" approves every
 * payment the moment its page opens, so the page is our own return URL. It keeps nothing: what it
 * learns at the start (the amount, the approval code of the gateway's settings) goes into the
 * attempt's provider data, and comes back with every later call. Registered by one line:
 * `startApp({ drivers: [OnePlaceDriver] })` (a driver of the service: one line in
 * src/payments/drivers/registered-drivers.ts).
 */
@Injectable()
export class OnePlaceDriver extends ProviderDriver implements RedirectDriver {
  static readonly catalogue = ONE_PLACE_CATALOGUE;

  constructor() {
    super(ONE_PLACE_CATALOGUE.pg, 'OnePlaceDriver');
  }

  start(input: StartInput): Promise<StartResult> {
    const provider: ProviderData = {
      amount: input.amount,
      currency: input.currencyCode,
      approval: typeof input.settings.approval_code === 'string' ? input.settings.approval_code : '',
    };
    return Promise.resolve({ provider, destination: { kind: 'redirect', url: input.returnUrl } });
  }

  complete(input: CompleteInput): Promise<Completion> {
    return this.inquire(input);
  }

  /** Approved at once: an attempt that was started is paid; one never started was never received. */
  inquire(input: Pick<InquiryInput, 'provider'>): Promise<InquiryAnswer> {
    const provider = input.provider;
    if (!provider?.approval) return Promise.resolve(null);
    const outcome: ProviderOutcome = {
      result: 'success',
      responseCode: provider.approval,
      amount: provider.amount,
      currencyCode: provider.currency,
    };
    return Promise.resolve(outcome);
  }

  abandon(input: InquiryInput): Promise<InquiryAnswer> {
    return this.inquire(input);
  }

  notification(): Promise<ProviderNotification> {
    return Promise.reject(new UnverifiedNotification('The one-place provider sends no notifications'));
  }

  pay(): Promise<AttemptOutcome> {
    return Promise.reject(new Error('The one-place provider saves no cards'));
  }

  followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    return Promise.resolve(
      input.operation === 'refund' ? { result: 'success' } : { result: 'failed', message: 'Refunds only.' },
    );
  }
}
