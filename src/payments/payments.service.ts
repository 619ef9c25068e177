import { Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BadRequest,
  DomainError,
  FieldErrors,
  NotFound,
  PermissionDenied,
  StateConflict,
} from '../common/errors/domain-errors';
import { UnitOfWork } from '../database/unit-of-work';
import { isSandbox, type Gateway } from '../gateways/gateway.entity';
import { GatewaysService } from '../gateways/gateways.service';
import type { Transaction } from '../transactions/transaction.entity';
import { isPayable, isSavingPaymentType } from '../transactions/transaction-state';
import { TransactionsService } from '../transactions/transactions.service';
import { TransitionService } from '../transactions/transition.service';
import { CardFingerprints } from '../cards/card-fingerprints';
import { isExpired, type NewCard } from '../cards/card-input';
import { CardsRepository } from '../cards/cards.repository';
import type { AttemptOutcome, PayInput, ProviderData } from './adapters/gateway-adapter';
import { GatewayAdapters, type BoundDriver } from './adapters/gateway-adapters';
import { AttemptSettlement } from './attempt-settlement';
import { isRouter, routerSettings } from '../routing/router-settings';
import { attemptOn, PaymentAttempt, type AttemptCard } from './payment-attempt.entity';
import { PaymentAttemptsRepository, type StoredAnswer } from './payment-attempts.repository';
import { newReferenceNumber } from './reference-numbers';
import { AppConfig } from '../config/app-config';
import { providerDeadline } from './provider-budget';
import { attemptUrls } from './provider-urls';

/** How long a second attempt waits for the one in flight to settle before it answers. */
const IN_FLIGHT_WAIT_MS = 3000;
const IN_FLIGHT_POLL_MS = 100;
/** Claim tries when the transaction turns out free right after a refused claim. */
const CLAIM_ROUNDS = 3;

/** A gateway's answer to a charge, with what the provider keeps of it (its PaymentIntent). */
type GatewayAnswer = StoredAnswer & { provider?: ProviderData };

export const ATTEMPT_IN_PROGRESS = 'A payment attempt for this transaction is already in progress.';

/**
 * What the customer pays with: a card typed now (checked by readNewCard; `save` asks to keep it),
 * or one of their saved cards by token (with the CVC the customer typed on the page; none for a
 * merchant-initiated charge).
 */
export type PaymentCard =
  | { card: NewCard; save: boolean }
  /** A saved card: picked on the payment page (`cardholderPresent`), or charged by auto-debit. */
  | { savedCardToken: string; cvc?: string; cardholderPresent?: boolean };

export interface AttemptRequest {
  /** Never stored or logged beyond what AttemptCard keeps. */
  payWith: PaymentCard;
  /** The payment method the customer chose (payment page URL); must be the transaction's. */
  pgCode?: string;
  /** The test helper runs only against sandbox gateways (contract §9). */
  sandboxOnly?: boolean;
}

export interface AttemptResultView {
  transaction: Transaction;
  referenceNumber: string;
  result: AttemptOutcome['result'];
}

/**
 * An attempt that did not reach the gateway because the transaction could not be claimed: it is
 * not payable, or another attempt holds it. Carries the transaction as it is now, so the customer
 * sees its real state (contract §17).
 */
export class AttemptRefused extends StateConflict {
  constructor(
    message: string,
    readonly transaction: Transaction,
  ) {
    super(message);
  }
}

/**
 * A charge whose outcome the gateway has not told yet (contract §20.1: unknown outcomes are asked,
 * not guessed): the attempt stays pending and holds the transaction (a second charge → 409), the
 * reconciler asks the gateway, and the merchant learns the outcome by webhook. 503, `Retry-After`,
 * `"result": "pending"`.
 */
export class AttemptPending extends DomainError {
  readonly status = 503;
  constructor(
    readonly transaction: Transaction,
    readonly referenceNumber: string,
  ) {
    super('The gateway has not confirmed this payment yet; its outcome will follow by webhook.');
    this.headers['Retry-After'] = '5';
  }
  override body(): unknown {
    return {
      detail: this.message,
      result: 'pending',
      session_id: this.transaction.sessionId,
      reference_number: this.referenceNumber,
    };
  }
}

/**
 * A customer-present charge the gateway wants the customer to confirm on its page first (3-D
 * Secure, contract §20.1): the attempt holds the transaction, and the page sends the customer to
 * `url`; they come back to the attempt's return URL.
 */
export class AttemptNeedsCustomer extends Error {
  constructor(
    readonly url: string,
    readonly referenceNumber: string,
  ) {
    super('The gateway asks the customer to confirm the payment on its page');
    this.name = 'AttemptNeedsCustomer';
  }
}

/** A claimed attempt: its row as written, and the transaction as stored when it was claimed. */
export interface Claimed {
  attempt: PaymentAttempt;
  transaction: Transaction;
}

/**
 * A payment attempt (contract §9), the same for the payment page, auto-debit and the test helper,
 * built so that a gateway outcome is never lost (contract §17). {@link attempt} reads as its steps,
 * one method each:
 *
 * 1. {@link claim}: one unit of work makes this the only attempt in flight (payable, before the
 *    deadline, no other attempt) and writes the attempt with its reference number — before the
 *    gateway is called; a second attempt is refused here and sees the real state;
 * 2. {@link callGateway}: the adapter charges the amount as stored;
 * 3. {@link recordAnswer}: its answer is stored, on its own, at once;
 * 4. {@link settle}: the transition, its event and the card, idempotently ({@link AttemptSettlement}).
 *
 * A crash or a database failure after 1 leaves an unsettled attempt that the reconciler finishes
 * by asking the gateway (steps 3 and 4 through {@link AttemptSettlement.finish}).
 */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger(PaymentsService.name);

  constructor(
    private readonly transactions: TransactionsService,
    private readonly transitions: TransitionService,
    private readonly gateways: GatewaysService,
    private readonly adapters: GatewayAdapters,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly settlement: AttemptSettlement,
    private readonly cards: CardsRepository,
    private readonly fingerprints: CardFingerprints,
    private readonly uow: UnitOfWork,
    private readonly config: AppConfig,
  ) {}

  /**
   * The transaction a customer is about to pay, expired first when its deadline has passed while it
   * was still payable (contract §7: the customer then sees `expired`). 404 when unknown, or when
   * `pgCode` is not its payment method.
   */
  async open(sessionId: string, pgCode?: string): Promise<{ transaction: Transaction; gateway: Gateway }> {
    const tx = await this.transactions.get(sessionId);
    if (pgCode !== undefined && pgCode !== tx.pgCode) throw new NotFound();
    const gateway = await this.gateways.findByCode(tx.pgCode);
    if (!gateway) throw new NotFound();
    return { transaction: await this.expiredIfDue(tx), gateway };
  }

  /**
   * The customer cancels a payable transaction (the checkout page; contract §5 payable → canceled),
   * in one unit of work. Null when it is no longer payable or another change won.
   */
  async cancel(tx: Transaction): Promise<Transaction | null> {
    const canceled = await this.uow.run((manager) =>
      this.transitions.applyIn(manager, tx, { trigger: 'cancel', details: { result: 'canceled' } }),
    );
    return canceled?.transaction ?? null;
  }

  /**
   * One payment attempt: checks that the transaction can be paid here and with this card, then
   * claim, call the gateway, record its answer, settle (see the class).
   */
  async attempt(sessionId: string, request: AttemptRequest): Promise<AttemptResultView> {
    const deadline = providerDeadline();
    const { transaction: opened, gateway } = await this.open(sessionId, request.pgCode);
    if (request.sandboxOnly && !isSandbox(gateway)) {
      throw new PermissionDenied('Test helpers only work with gateways of type "sandbox".');
    }
    if (gateway.flow === 'offline') {
      throw new BadRequest(`Gateway "${gateway.code}" takes cash: the merchant acknowledges the payment.`);
    }
    if (!isPayable(opened.state)) throw notPayable(opened);
    const chargedOn = await this.chargedGateway(gateway, request.payWith);
    const bound = await this.adapters.bind(chargedOn);
    if (!bound) throw new BadRequest(`Gateway "${gateway.code}" cannot take payments yet.`);
    if (bound.driver.flow === 'redirect' && !('savedCardToken' in request.payWith)) {
      throw new BadRequest(`Gateway "${gateway.code}" takes the card on its own payment page.`);
    }
    const { charge, keep } = await this.chargeFor(request.payWith, opened, chargedOn);

    const { attempt, transaction } = await this.claim(opened, keep, undefined, deadline, chargedOn.code);
    const answer = await this.callGateway(
      bound,
      chargedOn,
      attempt,
      transaction,
      charge,
      keep.save,
      deadline,
    );
    await this.recordAnswer(attempt, answer);
    return {
      transaction: await this.settle(attempt, answer, transaction),
      referenceNumber: attempt.referenceNumber,
      result: answer.result,
    };
  }

  /** Every attempt on a transaction, oldest first (the admin console; the card only as kept: brand, last four). */
  attemptsOf(tx: Transaction): Promise<PaymentAttempt[]> {
    return this.attempts.listForTransaction(tx.id);
  }

  /** One attempt by its reference number (the result page shows the provider's payment id). */
  attemptByReference(referenceNumber: string): Promise<PaymentAttempt | null> {
    return this.attempts.findByReference(referenceNumber);
  }

  /** The last successful attempt: what capture, void and refund apply to at the gateway. */
  lastSuccessfulAttempt(tx: Transaction): Promise<PaymentAttempt | null> {
    return this.attempts.findLastSuccess(tx.id);
  }

  /**
   * The gateway a charge runs on: the transaction's own, or — a saved card on a routing gateway
   * (contract §21) — the member that tokenized the card, one of the router's routes: the card is
   * the member's, and its charge never fails over.
   */
  private async chargedGateway(gateway: Gateway, payWith: PaymentCard): Promise<Gateway> {
    if (!isRouter(gateway) || !('savedCardToken' in payWith)) return gateway;
    const saved = await this.cards.findByToken(payWith.savedCardToken);
    const routes = routerSettings(gateway.settings).routes.map((route) => route.gateway);
    if (!saved || !routes.includes(saved.pgCode)) return gateway;
    return (await this.gateways.findByCode(saved.pgCode)) ?? gateway;
  }

  /**
   * What the gateway charges and what the attempt keeps of the card (contract §15). A typed card is
   * saved when asked to or when the transaction's payment_type says so — only for a customer, on a
   * tokenizable gateway. A saved card must be the transaction's customer's, on its gateway, and
   * not expired (400 under `token`).
   */
  private async chargeFor(
    payWith: PaymentCard,
    tx: Transaction,
    gateway: Gateway,
  ): Promise<{ charge: PayInput['card']; keep: AttemptCard }> {
    if ('savedCardToken' in payWith) {
      const saved = await this.cards.findByToken(payWith.savedCardToken);
      if (!saved || !tx.customerId || saved.customerId !== tx.customerId || saved.pgCode !== gateway.code) {
        throw new FieldErrors({
          token: ["No saved card with this token belongs to this transaction's customer and gateway."],
        });
      }
      if (isExpired(saved.expiryMonth, saved.expiryYear))
        throw new FieldErrors({ token: ['This card has expired.'] });
      return {
        charge: {
          gatewayToken: saved.gatewayToken,
          cvc: payWith.cvc,
          ...(payWith.cardholderPresent ? { cardholderPresent: true } : {}),
        },
        keep: {
          brand: saved.brand,
          last4: saved.last4,
          expiryMonth: saved.expiryMonth,
          expiryYear: saved.expiryYear,
          nameOnCard: saved.nameOnCard,
          save: false,
          savedCardToken: saved.token,
          ...(payWith.cardholderPresent ? { cardholderPresent: true } : {}),
        },
      };
    }
    const { card } = payWith;
    const save = payWith.save || isSavingPaymentType(tx.paymentType);
    if (save && !tx.customerId) {
      throw new FieldErrors({
        save_card: ['A card can only be saved for a transaction with a customer_id.'],
      });
    }
    if (save && !gateway.tokenizable) {
      throw new FieldErrors({ save_card: [`Gateway "${gateway.code}" cannot save cards.`] });
    }
    return {
      charge: { number: card.number },
      keep: {
        brand: card.brand,
        last4: card.number.slice(-4),
        expiryMonth: card.expiryMonth,
        expiryYear: card.expiryYear,
        nameOnCard: card.nameOnCard,
        fingerprint: save ? this.fingerprints.of(card.number) : undefined,
        save,
      },
    };
  }

  /**
   * Step 1: claims the transaction for a new attempt and writes the attempt (pending, with its
   * reference number). Refused with the transaction's real state when it is not payable or another
   * attempt holds it (after waiting a moment for that one to settle). An attempt found holding it
   * long after its request should have finished is settled first.
   *
   * `keepsHolder` says whether the caller goes back to the attempt holding the transaction rather
   * than have it ended: a redirect pick of the same gateway whose provider session is still open,
   * when another pick (a second replica, a double click) claimed it at the same moment (contract
   * §20, docs/decisions.md). The claim is then refused at once, with the transaction as it is now.
   * `gatewayCode`: the gateway the attempt runs on — the transaction's own, or the member a routing
   * gateway chose (contract §21), which its return, notifications and operations then go to.
   */
  async claim(
    opened: Transaction,
    card: AttemptCard | null,
    keepsHolder?: (holder: PaymentAttempt) => Promise<boolean>,
    deadline: number = providerDeadline(),
    gatewayCode: string = opened.pgCode,
  ): Promise<Claimed> {
    for (let round = 1; ; round++) {
      const claimed = await this.tryClaim(opened.id, card, gatewayCode);
      if (claimed) return claimed;
      await this.afterRefusedClaim(opened.sessionId, round, deadline, keepsHolder);
    }
  }

  /**
   * A left attempt its customer goes back to (contract §20.1: its provider session is still open):
   * it holds the transaction again, if the transaction is free and payable. False otherwise.
   */
  async resumeLeft(tx: Transaction, attempt: PaymentAttempt): Promise<boolean> {
    return this.uow
      .run(async (manager) => {
        if (!(await this.transitions.claim(manager, tx.id, attempt.referenceNumber))) return false;
        if (await this.attempts.markResumed(attempt.referenceNumber, manager)) return true;
        throw new ResumeRaced(); // settled meanwhile: the claim is rolled back
      })
      .catch((error: unknown) => {
        if (error instanceof ResumeRaced) return false;
        throw error;
      });
  }

  /**
   * One claim, in one unit of work: the conditional write that makes the new attempt the only one
   * in flight, the attempt row (for the amount stored now, never anything the browser sent), and a
   * saved card's use. Null when the transaction cannot be claimed.
   */
  private async tryClaim(
    transactionId: string,
    card: AttemptCard | null,
    gatewayCode: string,
  ): Promise<Claimed | null> {
    const referenceNumber = newReferenceNumber();
    const now = new Date();
    return this.uow.run(async (manager) => {
      const transaction = await this.transitions.claim(manager, transactionId, referenceNumber, now);
      if (!transaction) return null;
      const attempt = newAttempt(referenceNumber, { ...transaction, pgCode: gatewayCode }, card, now);
      await this.attempts.insert(attempt, manager);
      // A saved card charged (page or auto-debit) counts as used now, whatever the outcome, and
      // for the transaction's agreement when it has one (contract §15: most recently used first).
      if (card?.savedCardToken) {
        await this.cards.recordCharge(manager, card.savedCardToken, transaction.agreement?.id ?? null, now);
      }
      return { attempt, transaction };
    });
  }

  /**
   * After a refused claim: throws {@link AttemptRefused} with the transaction as it is now, or
   * returns when claiming again may win — the transaction was freed between the claim and this
   * read (for {@link CLAIM_ROUNDS} rounds), or the attempt holding it was overdue and has been
   * settled.
   */
  private async afterRefusedClaim(
    sessionId: string,
    round: number,
    deadline: number,
    keepsHolder?: (holder: PaymentAttempt) => Promise<boolean>,
  ): Promise<void> {
    let current = await this.expiredIfDue(await this.transactions.get(sessionId));
    if (!isPayable(current.state)) throw notPayable(current);
    if (!current.attemptInFlight) {
      if (round < CLAIM_ROUNDS) return;
      throw new AttemptRefused(ATTEMPT_IN_PROGRESS, current);
    }
    // One read of the holder decides both: kept as it is, or ended (a session stored after a
    // second read must not be ended by what the first one lacked).
    const holder = await this.attempts.findByReference(current.attemptInFlight);
    if (holder && keepsHolder && (await keepsHolder(holder)))
      throw new AttemptRefused(ATTEMPT_IN_PROGRESS, current);
    if (round === 1 && (await this.settledOverdueHolder(holder, deadline))) return;
    current = await this.waitWhileHeld(current);
    if (current.attemptInFlight) throw new AttemptRefused(ATTEMPT_IN_PROGRESS, current);
    if (!isPayable(current.state)) throw notPayable(current);
    // The other attempt was declined or failed: the customer sees that and may try again.
    throw new AttemptRefused(
      `Another payment attempt for this transaction just ended in state "${current.state}"; try again.`,
      current,
    );
  }

  /**
   * Settles `holder`, the attempt holding the transaction, when it is overdue, or sets it aside when
   * it is a session on a provider's page whose customer has come back to pay another way (contract
   * §20.1: the provider ends the session where it can, else the attempt stays watched — never a
   * refusal); true when it was tried (settled or not).
   */
  private async settledOverdueHolder(holder: PaymentAttempt | null, deadline: number): Promise<boolean> {
    if (holder && holder.provider !== null && holder.result === 'pending' && isSessionAttempt(holder)) {
      const ended = await this.settlement.abandon(holder, { deadline }).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'Could not end a redirect attempt; it stays watched');
        return 'unknown' as const;
      });
      if (ended === 'unknown') await this.settlement.leave(holder);
      return true;
    }
    if (!holder || !this.settlement.isOverdue(holder)) return false;
    await this.settlement.finish(holder).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'Could not settle an overdue attempt');
    });
    return true;
  }

  /**
   * Step 2: the gateway's answer. When the driver fails (no answer in time, a lost answer), the
   * outcome is unknown and asked, not guessed (contract §20.1): the gateway is asked at once — a
   * driver whose provider deduplicates by key re-sends the same charge — and when that tells no
   * final outcome either, the attempt stays pending (it holds the transaction: a second charge gets
   * 409), the request answers 503 `pending` ({@link AttemptPending}) and the reconciler finishes it.
   * A customer-present charge the gateway wants confirmed on its page (3-D Secure) is stored and the
   * customer sent there ({@link AttemptNeedsCustomer}).
   */
  private async callGateway(
    bound: BoundDriver,
    gateway: Gateway,
    attempt: PaymentAttempt,
    tx: Transaction,
    card: PayInput['card'],
    saveCard: boolean,
    deadline: number,
  ): Promise<GatewayAnswer> {
    const { driver } = bound;
    const merchantInitiated = 'gatewayToken' in card && !card.cardholderPresent && card.cvc === undefined;
    const returnUrl =
      'gatewayToken' in card && card.cardholderPresent
        ? attemptUrls(this.config.publicBaseUrl, gateway.code, attempt.referenceNumber).returnUrl
        : undefined;
    let answer;
    try {
      answer = await driver.pay({
        gateway,
        settings: bound.settings,
        deadline,
        referenceNumber: attempt.referenceNumber,
        amount: attempt.amount,
        currencyCode: attempt.currencyCode,
        operation: tx.operation,
        card,
        saveCard,
        ...(returnUrl ? { returnUrl } : {}),
        ...(merchantInitiated && tx.agreement
          ? { agreement: { id: tx.agreement.id, type: tx.agreement.type } }
          : {}),
      });
    } catch (error) {
      this.logger.error({ err: error, adapter: driver.name }, 'Gateway adapter failed during an attempt');
      return this.askAfterLostAnswer({ ...bound, gateway }, attempt, tx, deadline);
    }
    if (answer.result === 'redirect') {
      await this.attempts.storeProvider(attempt.referenceNumber, { ...answer.provider, url: answer.url });
      throw new AttemptNeedsCustomer(answer.url, attempt.referenceNumber);
    }
    return answer;
  }

  /** Step 2 when the charge's answer was lost: the gateway's final word now, or {@link AttemptPending}. */
  private async askAfterLostAnswer(
    bound: BoundDriver & { gateway: Gateway },
    attempt: PaymentAttempt,
    tx: Transaction,
    deadline: number,
  ): Promise<GatewayAnswer> {
    const known = await this.settlement.ask(bound, attempt, tx, { deadline }).catch((error: unknown) => {
      this.logger.warn({ err: error, adapter: bound.driver.name }, 'Could not ask the gateway either');
      return undefined;
    });
    if (known === undefined || known === null || known === 'open' || known.payerMayRetry)
      throw new AttemptPending(tx, attempt.referenceNumber);
    return {
      result: known.result,
      responseCode: known.responseCode,
      gatewayToken: known.gatewayToken,
      provider: known.provider,
    };
  }

  /**
   * Step 3: stores the gateway's answer on the attempt, before anything else can fail, with what the
   * provider keeps of it (capture, void and refund need it later).
   */
  private recordAnswer(attempt: PaymentAttempt, { provider, ...answer }: GatewayAnswer): Promise<void> {
    return this.attempts.storeAnswer(attempt.referenceNumber, answer, provider);
  }

  /** Step 4: the transaction's new state from the stored answer ({@link AttemptSettlement.settle}). */
  private settle(attempt: PaymentAttempt, answer: StoredAnswer, claimed: Transaction): Promise<Transaction> {
    return this.settlement.settle(attempt, answer, claimed.operation);
  }

  /** Expires a payable transaction whose deadline has passed (refused while an attempt holds it). */
  private async expiredIfDue(tx: Transaction): Promise<Transaction> {
    if (!isPayable(tx.state) || tx.attemptInFlight || tx.expiresAt.getTime() > Date.now()) return tx;
    const expired = await this.uow.run((manager) => this.transitions.expireIfDueIn(manager, tx));
    return expired?.transaction ?? (await this.transactions.findById(tx.id)) ?? tx;
  }

  /** The transaction once the attempt holding it has settled, or as it is after a short wait. */
  private async waitWhileHeld(tx: Transaction): Promise<Transaction> {
    const holder = tx.attemptInFlight;
    const until = Date.now() + IN_FLIGHT_WAIT_MS;
    let current = tx;
    while (current.attemptInFlight === holder && Date.now() < until) {
      await sleep(IN_FLIGHT_POLL_MS);
      current = await this.transactions.get(tx.sessionId);
    }
    return current;
  }
}

/** A pending attempt on `tx` as claimed: its amount is the one stored now. */
function newAttempt(
  referenceNumber: string,
  tx: Transaction,
  card: AttemptCard | null,
  now: Date,
): PaymentAttempt {
  return attemptOn(referenceNumber, tx, {
    result: 'pending',
    responseCode: '',
    card,
    createdAt: now,
    completedAt: null,
    settledAt: null,
  });
}

/** A left attempt was settled between its resume's claim and its own update (the claim is rolled back). */
class ResumeRaced extends Error {
  constructor() {
    super('The left attempt was settled while it was being resumed');
  }
}

/**
 * Whether an attempt is a session on a provider's page (a redirect attempt, or a saved-card charge
 * sent to 3-D Secure), which its customer may leave; not a charge in flight.
 */
export function isSessionAttempt(attempt: PaymentAttempt): boolean {
  if (!attempt.provider) return false;
  return !attempt.card?.savedCardToken || Boolean(attempt.provider.url);
}

export function notPayable(tx: Transaction): AttemptRefused {
  return new AttemptRefused(`A transaction in state "${tx.state}" can no longer be paid.`, tx);
}
