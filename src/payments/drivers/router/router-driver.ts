import { Injectable } from '@nestjs/common';
import type { Gateway } from '../../../gateways/gateway.entity';
import { ROUTER_PG } from '../../../routing/router-settings';
import type {
  Completion,
  FollowUpOutcome,
  InquiryAnswer,
  ProviderNotification,
  RedirectDriver,
  StartResult,
} from '../../adapters/gateway-adapter';
import { ROUTER_CATALOGUE } from './router.catalogue';

/**
 * Routing gateways (contract §21): the driver of a gateway that has no provider of its own. The pay
 * path (RedirectPayments) starts each attempt on one of its member gateways, through that member's
 * driver; the attempt carries the member's code, so its return, notifications, inquiry, the
 * reconciler and the operations after the payment all go to the member. No call ever reaches this
 * driver; each method says so if one does.
 */
@Injectable()
export class RouterDriver implements RedirectDriver {
  static readonly catalogue = ROUTER_CATALOGUE;

  readonly name = ROUTER_PG;
  readonly flow = 'redirect';

  serves(gateway: Gateway): boolean {
    return gateway.pg === ROUTER_PG;
  }

  private refuse<T>(call: string): Promise<T> {
    return Promise.reject(
      new Error(`A routing gateway has no provider: ${call} goes to the member gateway of the attempt`),
    );
  }

  start(): Promise<StartResult> {
    return this.refuse('start');
  }
  complete(): Promise<Completion> {
    return this.refuse('complete');
  }
  notification(): Promise<ProviderNotification> {
    return this.refuse('a notification');
  }
  abandon(): Promise<InquiryAnswer> {
    return this.refuse('abandon');
  }
  pay(): Promise<never> {
    return this.refuse('pay');
  }
  inquire(): Promise<InquiryAnswer> {
    return this.refuse('inquiry');
  }
  followUp(): Promise<FollowUpOutcome> {
    return this.refuse('an operation');
  }
}
