import { Injectable } from '@nestjs/common';
import { isCash, type Gateway } from '../../../gateways/gateway.entity';
import type {
  AttemptOutcome,
  FollowUpInput,
  FollowUpOutcome,
  GatewayDriver,
  InquiryInput,
} from '../../adapters/gateway-adapter';
import { CASH_CATALOGUE } from './cash.catalogue';

/**
 * Cash gateways (contract §16, flow `offline`): no one to call. The customer pays the merchant, who
 * acknowledges it (`POST /b/pbl/v2/payment/cash/`); a refund is the merchant handing the cash
 * back, recorded here. Cards are never charged through it.
 */
@Injectable()
export class CashGatewayAdapter implements GatewayDriver {
  static readonly catalogue = CASH_CATALOGUE;

  readonly name = CASH_CATALOGUE.pg;
  readonly flow = 'offline';

  serves(gateway: Gateway): boolean {
    return isCash(gateway);
  }

  pay(): Promise<AttemptOutcome> {
    return Promise.reject(new Error('A cash gateway takes no card: the merchant acknowledges the cash'));
  }

  /** Cash payments are recorded settled when acknowledged: none is ever left to ask about. */
  inquire(_input: InquiryInput): Promise<AttemptOutcome | null> {
    return Promise.resolve(null);
  }

  followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    if (input.operation === 'refund') return Promise.resolve({ result: 'success' });
    return Promise.resolve({ result: 'failed', message: `Cash payments cannot ${input.operation}.` });
  }
}
