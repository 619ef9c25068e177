import { Injectable } from '@nestjs/common';
import type { Gateway } from '../../gateways/gateway.entity';
import type {
  AttemptOutcome,
  FollowUpInput,
  FollowUpOutcome,
  GatewayAdapter,
  PayInput,
} from './gateway-adapter';

/** SPEC §9's test cards (digits only) and what each one does. */
export const TEST_CARDS = {
  success: '4111111111111111',
  declined: '4000000000000002',
  error: '4000000000000119',
} as const;

/**
 * The sandbox gateway: decides by test card, talks to no one. Serves every gateway of type
 * `sandbox`, whatever its `pg`. A card number that is none of the test cards is declined, as a real
 * sandbox would decline an unknown card.
 */
@Injectable()
export class SandboxGatewayAdapter implements GatewayAdapter {
  readonly name = 'sandbox';

  serves(gateway: Gateway): boolean {
    return gateway.type === 'sandbox';
  }

  pay(input: PayInput): Promise<AttemptOutcome> {
    switch (input.card) {
      case TEST_CARDS.success:
        return Promise.resolve({ result: 'success', responseCode: '00' });
      case TEST_CARDS.error:
        return Promise.resolve({ result: 'error', responseCode: '96' });
      default:
        return Promise.resolve({ result: 'declined', responseCode: '05' });
    }
  }

  followUp(_input: FollowUpInput): Promise<FollowUpOutcome> {
    return Promise.resolve({ result: 'success' });
  }
}
