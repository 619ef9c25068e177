import type { Gateway } from '../../src/gateways/gateway.entity';
import {
  type AttemptOutcome,
  type Completion,
  type CompleteInput,
  type FollowUpOutcome,
  type InquiryAnswer,
  type InquiryInput,
  type NotificationInput,
  type PayInput,
  type ProviderNotification,
  type RedirectDriver,
  type StartInput,
  type StartResult,
  UnverifiedNotification,
} from '../../src/payments/adapters/gateway-adapter';

/** What the scripted provider's session for one attempt is doing. */
export type SessionState = 'open' | 'paid' | 'declined_may_retry' | 'declined' | 'over';

export const SCRIPTED_SECRET = 'scripted-notification-secret';

/**
 * A provider whose every answer the test sets (contract §20.1's pay-path rules, which hold for every
 * driver): it stands in for one `pg` and keeps a ledger of the money it took. It is no simulator of a
 * real provider (each driver has its own, written from its provider's documentation: test/providers/);
 * it lets a test put the pay path in the situations those providers document — a session still open
 * after the customer left it, a decline the page lets the payer retry, a provider that cannot end its
 * session, one that hangs, a charge whose answer is lost — and count the calls it gets.
 */
export class ScriptedProvider implements RedirectDriver {
  readonly flow = 'redirect' as const;
  readonly sessions = new Map<string, { state: SessionState; amount: string; currency: string }>();
  /** Charges taken (saved-card charges and sessions paid), by reference: at most one each. */
  readonly ledger = new Map<string, { amount: string; currency: string }>();
  readonly calls = { start: 0, inquire: 0, complete: 0, abandon: 0, pay: 0, followUp: 0 };
  /** Whether the provider can end a session (Stripe can expire one; MPGS and KNET cannot). */
  canEnd = false;
  /** Until when a session may be handed to the customer again, from its start (ms). */
  resumableForMs = 15 * 60_000;
  /** How long a session may take a payment, from its start (ms). */
  payableForMs = 60 * 60_000;
  /** Every call waits until the request's deadline, then fails: a provider that stopped answering. */
  hangs = false;
  /** The next saved-card charge is carried out and its answer lost. */
  loseNextChargeAnswer = false;

  constructor(readonly name: string) {}

  serves(gateway: Gateway): boolean {
    return gateway.pg === this.name;
  }

  /** The customer pays on the provider's page (or the payer's retry after a decline does). */
  payOnPage(reference: string): void {
    const session = this.mustHave(reference);
    if (session.state === 'over' || session.state === 'paid' || session.state === 'declined')
      throw new Error(`session ${reference} cannot take a payment (${session.state})`);
    session.state = 'paid';
    this.take(reference, session.amount, session.currency);
  }

  /** A card is declined on the page, which keeps the payer there to retry. */
  declineOnPage(reference: string): void {
    this.mustHave(reference).state = 'declined_may_retry';
  }

  /** The session ends at the provider (its lifetime passed, or its page timed out). */
  endSession(reference: string): void {
    const session = this.mustHave(reference);
    if (session.state !== 'paid') session.state = 'over';
  }

  async start(input: StartInput): Promise<StartResult> {
    this.calls.start++;
    await this.maybeHang(input.deadline);
    const now = Date.now();
    this.sessions.set(input.referenceNumber, {
      state: 'open',
      amount: input.amount,
      currency: input.currencyCode,
    });
    const url = `https://pay.scripted.example/session/${input.referenceNumber}`;
    return {
      provider: {
        session_id: `sess_${input.referenceNumber}`,
        url,
        resume_until: new Date(now + this.resumableForMs).toISOString(),
        payable_until: new Date(now + this.payableForMs).toISOString(),
      },
      destination: { kind: 'redirect', url },
    };
  }

  async inquire(input: InquiryInput): Promise<InquiryAnswer> {
    this.calls.inquire++;
    await this.maybeHang(input.deadline);
    if (input.payment) {
      // Re-sent under the same key: carried out once, whatever happened to the first answer.
      if (!this.ledger.has(input.referenceNumber))
        this.take(input.referenceNumber, input.payment.amount, input.payment.currencyCode);
      return this.success(input.referenceNumber);
    }
    return this.answerOf(input.referenceNumber);
  }

  async complete(input: CompleteInput): Promise<Completion> {
    this.calls.complete++;
    await this.maybeHang(input.deadline);
    const answer = this.answerOf(input.referenceNumber);
    // Back on our site without paying while the session may still take the payment.
    if (input.params.left === '1' && answer === 'open') return 'left';
    return answer;
  }

  async abandon(input: InquiryInput): Promise<InquiryAnswer> {
    this.calls.abandon++;
    await this.maybeHang(input.deadline);
    const session = this.sessions.get(input.referenceNumber);
    if (this.canEnd && session && session.state !== 'paid') session.state = 'over';
    return this.answerOf(input.referenceNumber);
  }

  notification(input: NotificationInput): Promise<ProviderNotification> {
    if (input.headers['x-scripted-secret'] !== SCRIPTED_SECRET)
      return Promise.reject(new UnverifiedNotification('no scripted secret'));
    const body = JSON.parse(input.rawBody) as { reference?: unknown };
    if (typeof body.reference !== 'string') return Promise.resolve({ kind: 'ignore' });
    return Promise.resolve({ kind: 'ask', referenceNumber: body.reference });
  }

  async pay(input: PayInput): Promise<AttemptOutcome> {
    this.calls.pay++;
    await this.maybeHang(input.deadline);
    this.take(input.referenceNumber, input.amount, input.currencyCode);
    if (this.loseNextChargeAnswer) {
      this.loseNextChargeAnswer = false;
      throw new Error('socket hang up (the charge went through; its answer was lost)');
    }
    return { result: 'success', responseCode: 'approved' };
  }

  followUp(): Promise<FollowUpOutcome> {
    this.calls.followUp++;
    return Promise.resolve({ result: 'success' });
  }

  totalCalls(): number {
    return Object.values(this.calls).reduce((sum, n) => sum + n, 0);
  }

  resetCalls(): void {
    for (const key of Object.keys(this.calls) as (keyof typeof this.calls)[]) this.calls[key] = 0;
  }

  private answerOf(reference: string): InquiryAnswer {
    const session = this.sessions.get(reference);
    if (!session) return this.ledger.has(reference) ? this.success(reference) : null;
    switch (session.state) {
      case 'open':
        return 'open';
      case 'paid':
        return this.success(reference);
      case 'declined_may_retry':
        return {
          result: 'declined',
          responseCode: 'DECLINED',
          amount: session.amount,
          currencyCode: session.currency,
          payerMayRetry: true,
        };
      case 'declined':
        return {
          result: 'declined',
          responseCode: 'DECLINED',
          amount: session.amount,
          currencyCode: session.currency,
        };
      case 'over':
        return null;
    }
  }

  private success(reference: string): InquiryAnswer {
    const taken = this.ledger.get(reference)!;
    return {
      result: 'success',
      responseCode: 'approved',
      amount: taken.amount,
      currencyCode: taken.currency,
    };
  }

  private take(reference: string, amount: string, currency: string): void {
    if (this.ledger.has(reference)) throw new Error(`${reference} charged twice at the provider`);
    this.ledger.set(reference, { amount, currency });
  }

  private mustHave(reference: string) {
    const session = this.sessions.get(reference);
    if (!session) throw new Error(`no session ${reference}`);
    return session;
  }

  /** A provider that stopped answering: the call fails once the request's deadline has passed. */
  private async maybeHang(deadline: number | undefined): Promise<void> {
    if (!this.hangs) return;
    const wait = deadline === undefined ? 20_000 : Math.max(0, deadline - Date.now());
    await new Promise((resolve) => setTimeout(resolve, wait));
    throw new Error('the provider did not answer');
  }
}
