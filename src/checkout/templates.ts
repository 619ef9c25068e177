import { html, htmlDocument, raw, SafeHtml } from '../common/html/html';
import type { TransactionDto } from '../transactions/dto/transaction.dto';
import { isPayable, type TransactionState } from '../transactions/transaction-state';
import type { PageLanguage, PageStrings } from './i18n';
import { stringsFor } from './i18n';

export const STYLESHEET_PATH = '/b/checkout/static/checkout.css';
export const FAVICON_PATH = '/b/checkout/static/icons/checkout.svg';

export interface PageFrame {
  language: PageLanguage;
  title: string;
  merchantName: string;
  body: SafeHtml;
}

export function layout(frame: PageFrame): string {
  const t = stringsFor(frame.language);
  return htmlDocument({
    language: frame.language,
    dir: t.dir,
    title: `${frame.title} · ${frame.merchantName}`,
    stylesheet: STYLESHEET_PATH,
    icon: FAVICON_PATH,
    body: html`<main class="panel" aria-labelledby="page-title">
      <p class="merchant">${frame.merchantName}</p>
      <h1 id="page-title">${frame.title}</h1>
      ${frame.body}
    </main>`,
  });
}

export interface CheckoutView {
  tx: TransactionDto;
  merchantName: string;
  csrfToken: string;
  /** Where this page's forms post to. */
  cancelAction: string;
}

function summary(tx: TransactionDto, t: PageStrings, deadline: boolean): SafeHtml {
  const method = tx.payment_methods[0];
  return html`<dl class="summary">
    <div>
      <dt>${t.amount}</dt>
      <dd class="amount" data-testid="amount">${tx.amount} ${tx.currency_code}</dd>
    </div>
    ${
      method
        ? html`<div>
            <dt>${t.fee}</dt>
            <dd data-testid="fee">${method.fee} ${tx.currency_code}</dd>
          </div>`
        : ''
    }
    ${
      tx.order_no
        ? html`<div>
            <dt>${t.order}</dt>
            <dd>${tx.order_no}</dd>
          </div>`
        : ''
    }
    ${
      deadline
        ? html`<div>
            <dt>${t.payBefore}</dt>
            <dd><time datetime="${tx.expires_at}">${formatDeadline(tx.expires_at)}</time></dd>
          </div>`
        : ''
    }
  </dl>`;
}

/** `2026-11-21 07:15 UTC`: unambiguous in every language. */
export function formatDeadline(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function stateNotice(state: TransactionState, t: PageStrings): SafeHtml {
  const tone = state === 'failed' || state === 'error' ? 'warning' : isPayable(state) ? 'info' : 'final';
  return html`<p class="notice notice-${tone}" role="status" data-state="${state}">${t.states[state]}</p>`;
}

/** The hosted checkout page: a payable transaction's summary, methods and cancel; else its state. */
export function checkoutPage(view: CheckoutView, language: PageLanguage): string {
  const t = stringsFor(language);
  const { tx } = view;
  const payable = isPayable(tx.state as TransactionState);
  const body = html` ${summary(tx, t, payable)}
  ${tx.state !== 'created' ? stateNotice(tx.state as TransactionState, t) : ''}
  ${tx.attachment ? html`<p><a class="attachment" href="${tx.attachment}" download>${t.attachment}</a></p>` : ''}
  ${
    payable
      ? html`<section aria-labelledby="methods-title">
            <h2 id="methods-title">${t.paymentMethods}</h2>
            <ul class="methods">
              ${tx.payment_methods.map(
                (m) =>
                  html`<li>
                    <a class="method" href="${m.redirect_url}"
                      ><img src="${m.icon}" alt="" width="32" height="32" /><span>${m.name}</span></a
                    >
                  </li>`,
              )}
            </ul>
          </section>
          <form method="post" action="${view.cancelAction}" class="cancel">
            <input type="hidden" name="csrf_token" value="${view.csrfToken}" />
            <button type="submit" class="secondary">${t.cancel}</button>
          </form>`
      : ''
  }`;
  return layout({ language, title: t.checkoutTitle, merchantName: view.merchantName, body });
}

/** The payment form's fields, as posted. */
export type PaymentField =
  'card' | 'expiry' | 'cvc' | 'name_on_card' | 'saved_card' | 'saved_cvc' | 'save_card';

/** A saved card the customer may pay with (contract §15): never more than brand, last four, expiry. */
export interface SavedCardOption {
  /** The page's reference to the card (see pageReferenceOf): never its token. */
  reference: string;
  label: string;
}

export interface PaymentView {
  tx: TransactionDto;
  merchantName: string;
  methodName: string;
  isSandbox: boolean;
  csrfToken: string;
  checkoutUrl: string;
  /** The customer's saved cards on this gateway (contract §15). */
  savedCards: SavedCardOption[];
  /** The save checkbox: offered (unticked), required by payment_type (ticked, fixed), or absent. */
  save: 'offer' | 'required' | 'none';
  /** The last refused submission: each field's error (in the page language) and what was typed. */
  errors?: Partial<Record<PaymentField, string>>;
  typed?: { expiry?: string; name_on_card?: string; saved_card?: string; save_card?: boolean };
  /** Why the last submission was not charged, when another attempt held the transaction. */
  notice?: string;
  /** A cash gateway (flow `offline`, contract §16): the merchant's instructions instead of a card form. */
  cashInstructions?: string;
  /**
   * A redirect gateway (contract §20): a new card is typed on the provider's page, so this page only
   * offers the saved cards (charged without a CVC) and the choice to save the new one (contract §15).
   */
  providerPage?: boolean;
}

interface InputSpec {
  name: PaymentField;
  label: string;
  hint?: string;
  autocomplete: string;
  numeric?: boolean;
  maxlength: number;
  value?: string;
}

/** A labelled text input with its hint and error, tied together for screen readers. */
function textInput(spec: InputSpec, error: string | undefined, focus: boolean): SafeHtml {
  const described = [spec.hint ? `${spec.name}-hint` : '', error ? `${spec.name}-error` : ''].filter(Boolean);
  return html`<label for="${spec.name}">${spec.label}</label>
    <input
      id="${spec.name}"
      name="${spec.name}"
      type="text"
      ${spec.numeric ? raw('inputmode="numeric"') : ''}
      autocomplete="${spec.autocomplete}"
      maxlength="${spec.maxlength}"
      dir="ltr"
      value="${spec.value ?? ''}"
      ${described.length ? html`aria-describedby="${described.join(' ')}"` : ''}
      ${error ? raw(' aria-invalid="true"') : ''}
      ${focus ? raw(' autofocus') : ''}
    />
    ${spec.hint ? html`<p id="${spec.name}-hint" class="hint">${spec.hint}</p>` : ''}
    ${error ? html`<p id="${spec.name}-error" class="error" role="alert">${error}</p>` : ''}`;
}

const FIELD_ORDER: PaymentField[] = [
  'saved_card',
  'saved_cvc',
  'card',
  'expiry',
  'cvc',
  'name_on_card',
  'save_card',
];

/**
 * The sandbox gateway's payment page (contract §9, §15): the customer's saved cards (CVC only), or a
 * new card — number, expiry, CVC, name — and the "save this card" checkbox. Works without
 * JavaScript: the radio choice decides which fields count.
 */
export function paymentPage(view: PaymentView, language: PageLanguage): string {
  const t = stringsFor(language);
  const { tx } = view;
  const payable = isPayable(tx.state as TransactionState);
  const errors = view.errors ?? {};
  const typed = view.typed ?? {};
  const firstError = FIELD_ORDER.find((field) => errors[field]);
  const input = (spec: InputSpec) => textInput(spec, errors[spec.name], firstError === spec.name);
  const saveBox =
    view.save === 'none'
      ? ''
      : html`<label class="choice"
            ><input
              type="checkbox"
              name="save_card"
              value="true"
              id="save_card"
              ${view.save === 'required' || typed.save_card ? raw('checked') : ''}
              ${view.save === 'required' ? raw('disabled aria-describedby="save_card-hint"') : ''}
            />
            <span>${t.saveCard}</span></label
          >
          ${view.save === 'required' ? html`<p id="save_card-hint" class="hint">${t.saveCardRequired}</p>` : ''}
          ${errors.save_card ? html`<p id="save_card-error" class="error" role="alert">${errors.save_card}</p>` : ''}`;
  const newCard = html`${view.providerPage ? '' : cardInputs(input, typed, t)} ${saveBox}`;
  const fields = view.savedCards.length ? cardChoices(view, t, input, newCard) : newCard;
  const body = html` <p class="method-name">${view.methodName}</p>
    ${summary(tx, t, payable)} ${tx.state !== 'created' ? stateNotice(tx.state as TransactionState, t) : ''}
    ${view.notice ? html`<p class="notice notice-warning" role="alert">${view.notice}</p>` : ''}
    ${payable && view.cashInstructions !== undefined ? cashSection(view, view.cashInstructions, t) : ''}
    ${
      payable && view.cashInstructions === undefined
        ? html`${view.isSandbox ? html`<p class="sandbox">${t.sandboxNotice}</p>` : ''}
            <form method="post" class="pay" novalidate>
              <input type="hidden" name="csrf_token" value="${view.csrfToken}" />
              ${fields}
              <button type="submit" class="primary">
                ${view.providerPage ? t.continueToProvider : t.pay}
              </button>
            </form>
            <p><a href="${view.checkoutUrl}">${t.backToCheckout}</a></p>`
        : ''
    }`;
  const title = view.cashInstructions !== undefined ? t.cashPaymentTitle : t.paymentTitle;
  return layout({ language, title, merchantName: view.merchantName, body });
}

/**
 * A customer with saved cards chooses (contract §15): one fieldset for the saved cards, whose CVC
 * field shows once one of them is chosen, and one for a new card, whose fields show once it is
 * chosen. The stylesheet shows and hides them (`:has`), so this works without JavaScript; without
 * `:has` both groups show, still labelled. The server reads only the chosen group's fields.
 */
function cardChoices(
  view: PaymentView,
  t: PageStrings,
  input: (spec: InputSpec) => SafeHtml,
  newCard: SafeHtml,
): SafeHtml {
  const chosen = view.typed?.saved_card ?? '';
  const error = view.errors?.saved_card;
  return html`<fieldset class="card-choice saved-cards" data-choice="saved-card">
      <legend>${t.savedCards}</legend>
      ${view.savedCards.map(
        (card, i) =>
          html`<label class="choice"
            ><input
              type="radio"
              name="saved_card"
              value="${card.reference}"
              id="saved-card-${i}"
              ${chosen === card.reference ? raw('checked') : ''}
            />
            <span dir="ltr">${card.label}</span></label
          >`,
      )}
      ${error ? html`<p id="saved_card-error" class="error" role="alert">${error}</p>` : ''}
      ${
        view.providerPage
          ? ''
          : html`<div class="choice-fields">
              ${input({ name: 'saved_cvc', label: t.savedCardCvc, autocomplete: 'cc-csc', numeric: true, maxlength: 4 })}
            </div>`
      }
    </fieldset>
    <fieldset class="card-choice new-card" data-choice="new-card">
      <legend>
        <label class="choice"
          ><input
            type="radio"
            name="saved_card"
            value=""
            id="new-card"
            ${chosen === '' ? raw('checked') : ''}
          />
          <span>${view.providerPage ? t.newCardOnProvider : t.newCard}</span></label
        >
      </legend>
      <div class="choice-fields">${newCard}</div>
    </fieldset>`;
}

/** The new card's fields of the card form (a card_form gateway: the sandbox). */
function cardInputs(
  input: (spec: InputSpec) => SafeHtml,
  typed: NonNullable<PaymentView['typed']>,
  t: PageStrings,
): SafeHtml {
  return html`${input({ name: 'card', label: t.cardNumber, hint: t.cardHint, autocomplete: 'cc-number', numeric: true, maxlength: 23 })}
  ${input({ name: 'expiry', label: t.expiry, hint: t.expiryHint, autocomplete: 'cc-exp', maxlength: 7, value: typed.expiry })}
  ${input({ name: 'cvc', label: t.cvc, hint: t.cvcHint, autocomplete: 'cc-csc', numeric: true, maxlength: 4 })}
  ${input({ name: 'name_on_card', label: t.nameOnCard, autocomplete: 'cc-name', maxlength: 64, value: typed.name_on_card })}`;
}

/** A cash gateway's part of the payment page: the merchant's instructions, no form (contract §16). */
function cashSection(view: PaymentView, instructions: string, t: PageStrings): SafeHtml {
  return html`<section class="cash" aria-label="${view.methodName}">
      ${instructions ? html`<p class="instructions" data-testid="cash-instructions">${instructions}</p>` : ''}
      <p class="notice">${t.cashNotice}</p>
    </section>
    <p><a href="${view.checkoutUrl}">${t.backToCheckout}</a></p>`;
}

export interface ResultView {
  tx: TransactionDto;
  merchantName: string;
  referenceNumber?: string;
  /** The provider's own id of the payment, when it gives one (KNET's Payment ID). */
  providerPaymentId?: string;
  checkoutUrl: string;
}

/** After an attempt or a cancel when there is no redirect_url to send the customer to. */
export function resultPage(view: ResultView, language: PageLanguage): string {
  const t = stringsFor(language);
  const { tx } = view;
  const body = html` ${summary(tx, t, false)} ${stateNotice(tx.state as TransactionState, t)}
  ${view.referenceNumber ? html`<p class="reference">${t.reference}: <span data-testid="reference">${view.referenceNumber}</span></p>` : ''}
  ${view.providerPaymentId ? html`<p class="reference">${t.providerPaymentId}: <span data-testid="provider-payment-id">${view.providerPaymentId}</span></p>` : ''}
  ${isPayable(tx.state as TransactionState) ? html`<p><a href="${view.checkoutUrl}">${t.tryAgain}</a></p>` : ''}`;
  return layout({ language, title: t.resultTitle, merchantName: view.merchantName, body });
}

/**
 * The customer is back from a provider that has not confirmed the payment yet (contract §20): the
 * page says so; the response's `Refresh` header reloads it.
 */
export function confirmingPage(view: ResultView, language: PageLanguage): string {
  const t = stringsFor(language);
  const body = html` ${summary(view.tx, t, false)}
    <p class="notice" role="status" data-testid="confirming">${t.confirmingNotice}</p>
    <p class="reference">${t.reference}: <span data-testid="reference">${view.referenceNumber}</span></p>`;
  return layout({ language, title: t.confirmingTitle, merchantName: view.merchantName, body });
}

/** An error page (unknown link, expired form, ...). */
export function errorPage(message: string, language: PageLanguage, merchantName: string): string {
  const t = stringsFor(language);
  return layout({
    language,
    title: t.errorTitle,
    merchantName,
    body: html`<p class="notice notice-warning" role="alert">${message}</p>`,
  });
}
