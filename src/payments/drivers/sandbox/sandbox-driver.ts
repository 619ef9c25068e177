import { Injectable } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { isUniqueViolation } from '../../../database/db-values';
import { UnitOfWork } from '../../../database/unit-of-work';
import { isSandbox, type Gateway } from '../../../gateways/gateway.entity';
import type {
  AttemptOutcome,
  FollowUpInput,
  FollowUpOutcome,
  GatewayDriver,
  InquiryInput,
  PayInput,
} from '../../adapters/gateway-adapter';
import { SandboxCharge } from './sandbox-charge.entity';
import { SandboxOperation } from './sandbox-operation.entity';
import { SandboxToken } from './sandbox-token.entity';
import { SANDBOX_CATALOGUE } from './sandbox.catalogue';

/** contract §9's test cards (digits only) and what each one does; the last two are contract §15's. */
export const TEST_CARDS = {
  success: '4111111111111111',
  declined: '4000000000000002',
  error: '4000000000000119',
  /** Pays and can be saved; later charges with its token are declined. */
  savedThenDeclined: '4000000000000341',
  /** Pays and can be saved; later charges with its token end in a gateway error. */
  savedThenError: '4000000000000358',
} as const;

type Result = AttemptOutcome['result'];
const RESPONSE_CODES: Record<Result, string> = { success: '00', declined: '05', error: '96' };

/**
 * The sandbox gateway: decides by test card, talks to no one. Serves every gateway of type
 * `sandbox`, whatever its `pg` (but `cash`). A card number that is none of the test cards is declined, as a real
 * sandbox would decline an unknown card. Like a real gateway it keeps its own record of each
 * charge (`sandbox_charges`, never card data), so `inquire` can answer for it later, and a vault
 * of the cards it tokenized (`sandbox_tokens`): a token charges as its test card does later on.
 */
@Injectable()
export class SandboxGatewayAdapter implements GatewayDriver {
  static readonly catalogue = SANDBOX_CATALOGUE;
  /** Its ledger: the charges, the cards it tokenized, the operations by key. */
  static readonly imports = [TypeOrmModule.forFeature([SandboxCharge, SandboxToken, SandboxOperation])];

  readonly name = SANDBOX_CATALOGUE.pg;
  /** The customer types the card on Checkout's own payment page (contract §9). */
  readonly flow = 'card_form';

  constructor(
    @InjectRepository(SandboxCharge) private readonly charges: Repository<SandboxCharge>,
    @InjectRepository(SandboxToken) private readonly tokens: Repository<SandboxToken>,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * Gateways of pg `sandbox` and type `sandbox` (contract §20: the pg names the driver; a sandbox-type
   * gateway of a real driver, `mpgs` say, is that provider's test environment, never this card form).
   */
  serves(gateway: Gateway): boolean {
    return isSandbox(gateway) && gateway.pg === SANDBOX_CATALOGUE.pg;
  }

  async pay(input: PayInput): Promise<AttemptOutcome> {
    const result = await this.resultOf(input.card);
    const outcome: AttemptOutcome = { result, responseCode: RESPONSE_CODES[result], gatewayToken: null };
    // The gateway's side (the token it issues, the charge): recorded before it answers, as a
    // gateway's ledger is. A token left without its charge by a crash is never handed out.
    if (input.saveCard && result === 'success' && 'number' in input.card) {
      const token = {
        token: `sbx_${randomBytes(24).toString('base64url')}`,
        laterResult: laterResultOf(input.card.number),
      };
      await this.uow.retrying((m) =>
        m.withRepository(this.tokens).insert({ ...token, createdAt: new Date() }),
      );
      outcome.gatewayToken = token.token;
    }
    await this.uow.retrying((m) =>
      m.withRepository(this.charges).insert({
        referenceNumber: input.referenceNumber,
        result: outcome.result,
        responseCode: outcome.responseCode,
        gatewayToken: outcome.gatewayToken ?? null,
        amount: input.amount,
        currencyCode: input.currencyCode,
        createdAt: new Date(),
      }),
    );
    return outcome;
  }

  async inquire(input: InquiryInput): Promise<AttemptOutcome | null> {
    const charge = await this.charges.findOne({ where: { referenceNumber: input.referenceNumber } });
    return charge
      ? { result: charge.result, responseCode: charge.responseCode, gatewayToken: charge.gatewayToken }
      : null;
  }

  /**
   * Always agrees, and keeps what it did by operation key (`sandbox_operations`), as a provider keeps
   * an idempotency key's first answer: the same key again reports that outcome and does nothing
   * more. A call without a key is carried out each time (nothing to recognise it by).
   */
  async followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    const key = input.operationKey;
    if (!key) return { result: 'success' };
    const first = await this.operations.findOne({ where: { operationKey: key } });
    if (first) return { result: first.result };
    try {
      await this.uow.retrying((m) =>
        m.withRepository(this.operations).insert({
          operationKey: key,
          operation: input.operation,
          referenceNumber: input.referenceNumber,
          amount: input.amount,
          result: 'success',
          createdAt: new Date(),
        }),
      );
    } catch (error) {
      // The same key at the same moment from another caller: its record is the first outcome.
      if (!isUniqueViolation(error)) throw error;
      const raced = await this.operations.findOne({ where: { operationKey: key } });
      if (raced) return { result: raced.result };
      throw error;
    }
    return { result: 'success' };
  }

  /** The ledger of operations, beside the charges (kept out of the constructor its subclasses call). */
  private get operations(): Repository<SandboxOperation> {
    return this.charges.manager.getRepository(SandboxOperation);
  }

  private async resultOf(card: PayInput['card']): Promise<Result> {
    if ('gatewayToken' in card) {
      const saved = await this.tokens.findOne({ where: { token: card.gatewayToken } });
      return saved?.laterResult ?? 'declined'; // a token this vault never issued
    }
    switch (card.number) {
      case TEST_CARDS.success:
      case TEST_CARDS.savedThenDeclined:
      case TEST_CARDS.savedThenError:
        return 'success';
      case TEST_CARDS.error:
        return 'error';
      default:
        return 'declined';
    }
  }
}

function laterResultOf(number: string): Result {
  if (number === TEST_CARDS.savedThenDeclined) return 'declined';
  if (number === TEST_CARDS.savedThenError) return 'error';
  return 'success';
}
