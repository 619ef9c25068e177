import { type Gateway, isSandbox } from '../gateways/gateway.entity';
import { isRouter, routerSettings } from '../routing/router-settings';
import { GatewayDrivers } from '../gateways/gateway-drivers';
import { Injectable } from '@nestjs/common';
import { AdminConfigService } from '../admin-config/admin-config.service';
import type { Card } from '../cards/card.entity';
import { toCardDto } from '../cards/card.view';
import { isExpired, readNewCard, readSavedCardCvc } from '../cards/card-input';
import { CardsRepository } from '../cards/cards.repository';
import { toBoolean } from '../common/validation/field-decorators';
import { FieldErrors } from '../common/errors/domain-errors';
import { AppConfig } from '../config/app-config';
import {
  AttemptNeedsCustomer,
  AttemptPending,
  AttemptRefused,
  type PaymentCard,
  PaymentsService,
} from '../payments/payments.service';
import { RedirectPayments } from '../payments/redirect-payments.service';
import { isSavingPaymentType } from '../transactions/transaction-state';
import type { TransactionDto } from '../transactions/dto/transaction.dto';
import type { Transaction } from '../transactions/transaction.entity';
import { checkoutPagePath, checkoutUrl } from '../transactions/transaction-urls';
import QRCode from 'qrcode';
import { TransactionsService } from '../transactions/transactions.service';
import { NOT_A_PAGE_CARD, pageLanguage, stringsFor } from './i18n';
import { cardOfPageReference, pageReferenceOf } from './saved-card-references';
import { originOf, type PageResponse } from './page-response';
import { providerScriptPage } from './provider-script-page';
import {
  checkoutPage,
  confirmingPage,
  paymentPage,
  type PaymentField,
  type PaymentView,
  resultPage,
  type SavedCardOption,
} from './templates';

/** A saved card charged through a redirect gateway: its page asks no CVC. */
const NO_CVC = Symbol('no CVC');

/** How often the "payment being confirmed" page reloads itself. */
const CONFIRMING_RELOAD_SECONDS = 3;

/** Our own page paths (relative: the browser stays on the origin it came in through). */
const cancelPath = (sessionId: string): string => `/b/checkout/txn/${sessionId}/cancel`;

/**
 * The hosted pages (contract §9): checkout page, the sandbox gateway's payment page, and what follows an
 * attempt or a cancel. Amounts always come from the stored transaction; the browser only sends the
 * card (never stored beyond brand, last four, expiry and name) or the page's reference to a saved
 * card (never its token), and the CSRF token.
 */
@Injectable()
export class CheckoutPagesService {
  constructor(
    private readonly payments: PaymentsService,
    private readonly transactions: TransactionsService,
    private readonly adminConfig: AdminConfigService,
    private readonly config: AppConfig,
    private readonly cards: CardsRepository,
    private readonly redirects: RedirectPayments,
    private readonly drivers: GatewayDrivers,
  ) {}

  get secureCookies(): boolean {
    return this.config.publicBaseUrl.startsWith('https://');
  }

  /** `checkout_url`: sends the customer on to the checkout page (404 page when unknown). */
  async start(sessionId: unknown): Promise<PageResponse> {
    const tx = await this.transactions.get(typeof sessionId === 'string' ? sessionId : '');
    return { kind: 'redirect', status: 302, location: checkoutPagePath(tx.sessionId) };
  }

  async checkout(sessionId: string, csrfToken: string): Promise<PageResponse> {
    const { transaction } = await this.payments.open(sessionId);
    const ctx = await this.context(transaction);
    return this.htmlPage(
      200,
      checkoutPage(
        { tx: ctx.dto, merchantName: ctx.merchantName, csrfToken, cancelAction: cancelPath(sessionId) },
        ctx.language,
      ),
      ctx,
    );
  }

  async paymentForm(
    sessionId: unknown,
    pgCode: string,
    csrfToken: string,
    status = 200,
    refused: RefusedSubmission = {},
  ): Promise<PageResponse> {
    const { transaction, gateway } = await this.payments.open(asSessionId(sessionId), pgCode);
    const redirect = this.redirects.isRedirectGateway(gateway);
    if (status === 200 && redirect && !(await this.choosesBeforeProvider(transaction, gateway)))
      return this.toProvider(transaction.sessionId, pgCode, csrfToken);
    const ctx = await this.context(transaction);
    // The form of a redirect gateway's page answers with a 303 to the provider's page: its CSP
    // `form-action` must allow that origin too.
    const providerOrigins = redirect ? await this.redirects.pageOrigins(gateway) : [];
    const t = stringsFor(ctx.language);
    const canSave = offersSavedCards(gateway, transaction);
    const errors = Object.fromEntries(
      Object.entries(refused.errors ?? {}).map(([field, message]) => [
        field,
        t.cardMessages[message] ?? message,
      ]),
    );
    const page = this.htmlPage(
      status,
      paymentPage(
        {
          tx: ctx.dto,
          merchantName: ctx.merchantName,
          methodName: gateway.name,
          isSandbox: isSandbox(gateway),
          csrfToken,
          checkoutUrl: checkoutPagePath(transaction.sessionId),
          savedCards: await this.savedCardOptions(transaction, gateway),
          save: !canSave ? 'none' : isSavingPaymentType(transaction.paymentType) ? 'required' : 'offer',
          errors,
          typed: refused.typed,
          notice: refused.inProgress ? t.attemptInProgress : undefined,
          cashInstructions: gateway.flow === 'offline' ? gateway.instructions : undefined,
          providerPage: redirect,
        },
        ctx.language,
      ),
      ctx,
    );
    return page.kind === 'html'
      ? { ...page, formTargets: [...(page.formTargets ?? []), ...providerOrigins] }
      : page;
  }

  async pay(
    sessionId: unknown,
    pgCode: string,
    form: Record<string, unknown>,
    csrfToken: string,
  ): Promise<PageResponse> {
    const id = asSessionId(sessionId);
    const savedCardRef = typeof form.saved_card === 'string' ? form.saved_card : '';
    try {
      const { gateway } = await this.payments.open(id, pgCode);
      const redirect = this.redirects.isRedirectGateway(gateway);
      if (redirect && !savedCardRef)
        return await this.toProvider(id, pgCode, csrfToken, toBoolean(form.save_card) === true);
      const payWith = savedCardRef
        ? await this.savedCardPayment(id, pgCode, savedCardRef, redirect ? NO_CVC : form.saved_cvc)
        : { card: readNewCard(form), save: toBoolean(form.save_card) === true };
      const attempt = await this.payments.attempt(id, { payWith, pgCode });
      return this.finish(attempt.transaction, attempt.referenceNumber);
    } catch (error) {
      // 3-D Secure of a saved card picked here (contract §20.1): on to the provider's page; the
      // customer comes back to the attempt's return URL.
      if (error instanceof AttemptNeedsCustomer)
        return { kind: 'redirect', status: 303, location: error.url };
      // The gateway has not told the outcome yet: on to the attempt's return URL (a GET), whose page
      // reloads itself until it has.
      if (error instanceof AttemptPending)
        return {
          kind: 'redirect',
          status: 303,
          location: this.redirects.urls(pgCode, error.referenceNumber).returnUrl,
        };
      if (error instanceof FieldErrors) {
        return this.paymentForm(id, pgCode, csrfToken, 400, {
          errors: pageFieldErrors(error, savedCardRef !== ''),
          typed: typedBack(form, savedCardRef),
        });
      }
      if (error instanceof AttemptRefused) {
        // Not charged: another attempt held the transaction, or it is not payable. The customer
        // sees its real state: paid by the other attempt → where a paid customer goes.
        const tx = error.transaction;
        if (tx.state === 'paid' || tx.state === 'authorized') {
          const winner = await this.payments.lastSuccessfulAttempt(tx);
          return this.finish(tx, winner?.referenceNumber ?? '');
        }
        return this.paymentForm(id, pgCode, csrfToken, 409, { inProgress: tx.attemptInFlight !== null });
      }
      throw error;
    }
  }

  /**
   * The customer picked a redirect gateway (contract §20): the attempt is claimed and the customer
   * sent to the provider's page: a 303, or (MPGS) our page that loads the provider's script.
   * Refused: where a paid customer goes, or the checkout page saying why (409).
   */
  private async toProvider(
    sessionId: string,
    pgCode: string,
    csrfToken: string,
    saveCard = false,
  ): Promise<PageResponse> {
    try {
      const destination = await this.redirects.start(sessionId, pgCode, saveCard);
      if (destination.kind === 'redirect')
        return { kind: 'redirect', status: 303, location: destination.url };
      const tx = await this.transactions.get(sessionId);
      const ctx = await this.context(tx);
      const page = providerScriptPage(
        {
          merchantName: ctx.merchantName,
          scriptUrl: destination.scriptUrl,
          sessionId: destination.sessionId,
          checkoutUrl: checkoutPagePath(tx.sessionId),
        },
        ctx.language,
      );
      return {
        kind: 'html',
        status: 200,
        html: page.html,
        scripts: page.scripts,
        formTargets: page.formTargets,
      };
    } catch (error) {
      if (!(error instanceof AttemptRefused)) throw error;
      const tx = error.transaction;
      if (tx.state === 'paid' || tx.state === 'authorized') {
        const winner = await this.payments.lastSuccessfulAttempt(tx);
        return this.finish(tx, winner?.referenceNumber ?? '');
      }
      const page = await this.checkout(sessionId, csrfToken);
      return page.kind === 'html' ? { ...page, status: 409 } : page;
    }
  }

  /**
   * The customer is back from the provider (contract §20): settled → on as after any attempt; not
   * paid there → the checkout page (still payable); not confirmed yet → the page that reloads.
   */
  async returned(code: string, params: Record<string, string>): Promise<PageResponse> {
    const outcome = await this.redirects.returned(code, params);
    if (outcome.kind === 'settled') return this.finish(outcome.transaction, outcome.referenceNumber);
    if (outcome.kind === 'payable')
      return { kind: 'redirect', status: 303, location: checkoutPagePath(outcome.transaction.sessionId) };
    return this.confirming(outcome.transaction, outcome.referenceNumber);
  }

  /** The page saying the payment is being confirmed; it reloads itself. */
  private async confirming(tx: Transaction, referenceNumber: string): Promise<PageResponse> {
    const ctx = await this.context(tx);
    const page = this.htmlPage(
      200,
      confirmingPage(
        {
          tx: ctx.dto,
          merchantName: ctx.merchantName,
          referenceNumber,
          checkoutUrl: checkoutPagePath(tx.sessionId),
        },
        ctx.language,
      ),
      ctx,
    );
    return page.kind === 'html' ? { ...page, refreshSeconds: CONFIRMING_RELOAD_SECONDS } : page;
  }

  /**
   * Whether picking a redirect gateway first shows our page (contract §15): the customer's saved
   * cards on it to pay with, or the choice to save the card they will type on the provider's page.
   * Without either (no customer, a gateway that cannot save, or a `payment_type` that saves anyway
   * and no saved card), the customer goes straight to the provider.
   */
  private async choosesBeforeProvider(tx: Transaction, gateway: Gateway): Promise<boolean> {
    if (!offersSavedCards(gateway, tx)) return false;
    if (!isSavingPaymentType(tx.paymentType)) return true;
    return (await this.pageCards(tx, gateway)).length > 0;
  }

  /**
   * The saved cards this transaction's payment page offers (contract §15): the customer's unexpired
   * cards on its gateway, when the gateway saves cards; none without a customer. A routing
   * gateway's are its members' (contract §21: a card belongs to the member that saved it, and is
   * charged there).
   */
  private async pageCards(tx: Transaction, gateway: Gateway): Promise<Card[]> {
    if (!offersSavedCards(gateway, tx)) return [];
    const codes = isRouter(gateway)
      ? routerSettings(gateway.settings).routes.map((route) => route.gateway)
      : [tx.pgCode];
    const cards = await this.cards.list(tx.customerId, codes);
    return cards.filter((card) => !isExpired(card.expiryMonth, card.expiryYear));
  }

  /** The page's saved cards as it lists them: a page reference (never the token) and a label. */
  private async savedCardOptions(tx: Transaction, gateway: Gateway): Promise<SavedCardOption[]> {
    return (await this.pageCards(tx, gateway)).map((card) => {
      const view = toCardDto(card, this.drivers.savedCardAsksCvc(gateway));
      return {
        reference: pageReferenceOf(card, tx.sessionId),
        label: `${view.brand} ${view.number} · ${view.expiry_month}/${view.expiry_year}`,
      };
    });
  }

  /**
   * Paying with a saved card chosen on the page: the reference must name one of the cards this
   * transaction's page offers (400 under `saved_card` otherwise, nothing charged); the attempt
   * then gets that card's token, server-side. A redirect gateway's page asks no CVC
   * ({@link NO_CVC}): the provider charges its saved card without one (docs/gateways/stripe.md).
   */
  private async savedCardPayment(
    sessionId: string,
    pgCode: string,
    reference: string,
    cvc: unknown,
  ): Promise<PaymentCard> {
    const typedCvc = cvc === NO_CVC ? undefined : readSavedCardCvc(cvc);
    const { transaction, gateway } = await this.payments.open(sessionId, pgCode);
    const cards = await this.pageCards(transaction, gateway);
    const card = cardOfPageReference(cards, transaction.sessionId, reference);
    if (!card) throw new FieldErrors({ token: [NOT_A_PAGE_CARD] });
    return { savedCardToken: card.token, cvc: typedCvc, cardholderPresent: true };
  }

  /**
   * The PNG of a transaction's `qr_code_url` (contract §16): a QR code of `checkout_url`, made on
   * request (a few milliseconds) rather than stored. Unknown → 404.
   */
  async qrCode(file: string): Promise<Buffer> {
    const token = /^(.+)\.png$/.exec(file)?.[1] ?? '';
    const tx = await this.transactions.getByQrCodeToken(token);
    return QRCode.toBuffer(checkoutUrl(this.config.publicBaseUrl, tx.sessionId), {
      type: 'png',
      errorCorrectionLevel: 'M',
      margin: 2,
      width: 320,
    });
  }

  /** The customer cancels on the checkout page (contract §5 payable → canceled). */
  async cancel(sessionId: string, csrfToken: string): Promise<PageResponse> {
    const { transaction } = await this.payments.open(sessionId);
    const canceled = await this.payments.cancel(transaction);
    if (!canceled) {
      const page = await this.checkout(sessionId, csrfToken);
      return page.kind === 'html' ? { ...page, status: 409 } : page;
    }
    return this.finish(canceled, '');
  }

  /** After an attempt or a cancel: on to `redirect_url` with the outcome, or a result page. */
  private async finish(tx: Transaction, referenceNumber: string): Promise<PageResponse> {
    const target = await this.redirectTarget(tx);
    if (target) {
      const url = new URL(target);
      url.searchParams.set('session_id', tx.sessionId);
      url.searchParams.set('order_no', tx.orderNo ?? '');
      url.searchParams.set('reference_number', referenceNumber);
      url.searchParams.set('state', tx.state);
      return { kind: 'redirect', status: 303, location: url.toString() };
    }
    const ctx = await this.context(tx);
    const attempt = referenceNumber ? await this.payments.attemptByReference(referenceNumber) : null;
    const providerPaymentId = attempt?.provider?.payment_id;
    return this.htmlPage(
      200,
      resultPage(
        {
          tx: ctx.dto,
          merchantName: ctx.merchantName,
          referenceNumber,
          ...(providerPaymentId ? { providerPaymentId } : {}),
          checkoutUrl: checkoutPagePath(tx.sessionId),
        },
        ctx.language,
      ),
      ctx,
    );
  }

  private async redirectTarget(tx: Transaction): Promise<string | null> {
    if (tx.redirectUrl) return tx.redirectUrl;
    return (await this.adminConfig.get()).defaultRedirectUrl ?? null;
  }

  private async context(tx: Transaction) {
    const [view, admin, redirect] = await Promise.all([
      this.transactions.represent(tx),
      this.adminConfig.get(),
      this.redirectTarget(tx),
    ]);
    return {
      dto: view.body,
      merchantName: admin.merchantName,
      language: pageLanguage(tx.language),
      redirectOrigin: originOf(redirect),
    };
  }

  private htmlPage(
    status: number,
    html: string,
    ctx: { dto: TransactionDto; redirectOrigin: string | null },
  ): PageResponse {
    return {
      kind: 'html',
      status,
      html,
      // After a POST the browser follows our 303 to redirect_url: form-action must allow it.
      formTargets: ctx.redirectOrigin ? [ctx.redirectOrigin] : [],
      imageSources: ctx.dto.payment_methods.map((m) => originOf(m.icon)).filter((o): o is string => !!o),
    };
  }
}

/** A refused payment form: the errors to show beside each field, what to fill in again. */
interface RefusedSubmission {
  errors?: Partial<Record<PaymentField, string>>;
  typed?: PaymentView['typed'];
  inProgress?: boolean;
}

/** Whether the payment page lists saved cards: a customer's transaction on a gateway that saves cards. */
function offersSavedCards(gateway: Gateway, tx: Transaction): boolean {
  return gateway.tokenizable && tx.customerId !== '';
}

/** The attempt's field errors under the form's own field names (first message each). */
function pageFieldErrors(error: FieldErrors, savedCard: boolean): Partial<Record<PaymentField, string>> {
  const rename: Record<string, PaymentField> = savedCard
    ? { cvc: 'saved_cvc', token: 'saved_card' }
    : { card: 'card', expiry: 'expiry', cvc: 'cvc', name_on_card: 'name_on_card', save_card: 'save_card' };
  const errors: Partial<Record<PaymentField, string>> = {};
  for (const [key, messages] of Object.entries(error.errors)) {
    const field = rename[key];
    if (field && Array.isArray(messages) && typeof messages[0] === 'string') errors[field] = messages[0];
  }
  return errors;
}

/** What the refused form shows again: never the card number or a CVC. */
function typedBack(form: Record<string, unknown>, savedCardRef: string): PaymentView['typed'] {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    expiry: text(form.expiry),
    name_on_card: text(form.name_on_card),
    saved_card: savedCardRef,
    save_card: toBoolean(form.save_card) === true,
  };
}

/** A session id from the query string; anything else is no session (404). */
function asSessionId(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
