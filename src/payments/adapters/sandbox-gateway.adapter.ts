import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { UnitOfWork } from '../../database/unit-of-work';
import { isSandbox, type Gateway } from '../../gateways/gateway.entity';
import type {
  AttemptOutcome,
  FollowUpInput,
  FollowUpOutcome,
  GatewayAdapter,
  InquiryInput,
  PayInput,
} from './gateway-adapter';
import { SandboxCharge } from './sandbox-charge.entity';

/** SPEC §9's test cards (digits only) and what each one does. */
export const TEST_CARDS = {
  success: '4111111111111111',
  declined: '4000000000000002',
  error: '4000000000000119',
} as const;

/**
 * The sandbox gateway: decides by test card, talks to no one. Serves every gateway of type
 * `sandbox`, whatever its `pg`. A card number that is none of the test cards is declined, as a real
 * sandbox would decline an unknown card. Like a real gateway it keeps its own record of each
 * charge (`sandbox_charges`, never card data), so `inquire` can answer for it later.
 */
@Injectable()
export class SandboxGatewayAdapter implements GatewayAdapter {
  readonly name = 'sandbox';

  constructor(
    @InjectRepository(SandboxCharge) private readonly charges: Repository<SandboxCharge>,
    private readonly uow: UnitOfWork,
  ) {}

  serves(gateway: Gateway): boolean {
    return isSandbox(gateway);
  }

  async pay(input: PayInput): Promise<AttemptOutcome> {
    const outcome = decide(input.card);
    // The gateway's side of the charge: recorded before it answers, as a gateway's ledger is.
    await this.uow.retrying(() =>
      this.charges.insert({
        referenceNumber: input.referenceNumber,
        ...outcome,
        amount: input.amount,
        currencyCode: input.currencyCode,
        createdAt: new Date(),
      }),
    );
    return outcome;
  }

  async inquire(input: InquiryInput): Promise<AttemptOutcome | null> {
    const charge = await this.charges.findOne({ where: { referenceNumber: input.referenceNumber } });
    return charge ? { result: charge.result, responseCode: charge.responseCode } : null;
  }

  followUp(_input: FollowUpInput): Promise<FollowUpOutcome> {
    return Promise.resolve({ result: 'success' });
  }
}

function decide(card: string): AttemptOutcome {
  switch (card) {
    case TEST_CARDS.success:
      return { result: 'success', responseCode: '00' };
    case TEST_CARDS.error:
      return { result: 'error', responseCode: '96' };
    default:
      return { result: 'declined', responseCode: '05' };
  }
}
