import type { TransactionDto } from '../transactions/dto/transaction.dto';
import { isPayable, type TransactionState } from '../transactions/transaction-state';
import type { PageLanguage, PageStrings } from './i18n';
import { stringsFor } from './i18n';

/** Markup that is already safe: only {@link html} and {@link raw} make one. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export const escapeHtml = (value: string): string => value.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);

type Part = SafeHtml | string | number | null | undefined | false | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** Tagged template: every interpolated value is escaped unless it is already {@link SafeHtml}. */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}

export const raw = (text: string): SafeHtml => new SafeHtml(text);

export const STYLESHEET_PATH = '/b/checkout/static/checkout.css';
const FAVICON_PATH = '/b/checkout/static/icons/checkout.svg';

export interface PageFrame {
  language: PageLanguage;
  title: string;
  merchantName: string;
  body: SafeHtml;
}

export function layout(frame: PageFrame): string {
  const t = stringsFor(frame.language);
  return html`<!doctype html>
    <html lang="${frame.language}" dir="${t.dir}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${frame.title} · ${frame.merchantName}</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
        <link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}" />
      </head>
      <body>
        <main class="panel" aria-labelledby="page-title">
          <p class="merchant">${frame.merchantName}</p>
          <h1 id="page-title">${frame.title}</h1>
          ${frame.body}
        </main>
      </body>
    </html> `.text;
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

export interface PaymentView {
  tx: TransactionDto;
  merchantName: string;
  methodName: string;
  isSandbox: boolean;
  csrfToken: string;
  checkoutUrl: string;
  /** The card field's error, if the last submission was refused. */
  cardError?: string;
  /** Why the last submission was not charged, when another attempt held the transaction. */
  notice?: string;
}

/** The sandbox gateway's payment page: "Card number" and "Pay" (SPEC §9). */
export function paymentPage(view: PaymentView, language: PageLanguage): string {
  const t = stringsFor(language);
  const { tx } = view;
  const payable = isPayable(tx.state as TransactionState);
  const error = view.cardError;
  const body = html` <p class="method-name">${view.methodName}</p>
    ${summary(tx, t, payable)} ${tx.state !== 'created' ? stateNotice(tx.state as TransactionState, t) : ''}
    ${view.notice ? html`<p class="notice notice-warning" role="alert">${view.notice}</p>` : ''}
    ${
      payable
        ? html`${view.isSandbox ? html`<p class="sandbox">${t.sandboxNotice}</p>` : ''}
            <form method="post" class="pay" novalidate>
              <input type="hidden" name="csrf_token" value="${view.csrfToken}" />
              <label for="card">${t.cardNumber}</label>
              <input
                id="card"
                name="card"
                type="text"
                inputmode="numeric"
                autocomplete="cc-number"
                required
                maxlength="23"
                dir="ltr"
                aria-describedby="card-hint${error ? ' card-error' : ''}"
                ${error ? raw(' aria-invalid="true" autofocus') : ''}
              />
              <p id="card-hint" class="hint">${t.cardHint}</p>
              ${error ? html`<p id="card-error" class="error" role="alert">${error}</p>` : ''}
              <button type="submit" class="primary">${t.pay}</button>
            </form>
            <p><a href="${view.checkoutUrl}">${t.backToCheckout}</a></p>`
        : ''
    }`;
  return layout({ language, title: t.paymentTitle, merchantName: view.merchantName, body });
}

export interface ResultView {
  tx: TransactionDto;
  merchantName: string;
  referenceNumber?: string;
  checkoutUrl: string;
}

/** After an attempt or a cancel when there is no redirect_url to send the customer to. */
export function resultPage(view: ResultView, language: PageLanguage): string {
  const t = stringsFor(language);
  const { tx } = view;
  const body = html` ${summary(tx, t, false)} ${stateNotice(tx.state as TransactionState, t)}
  ${view.referenceNumber ? html`<p class="reference">${t.reference}: <span data-testid="reference">${view.referenceNumber}</span></p>` : ''}
  ${isPayable(tx.state as TransactionState) ? html`<p><a href="${view.checkoutUrl}">${t.tryAgain}</a></p>` : ''}`;
  return layout({ language, title: t.resultTitle, merchantName: view.merchantName, body });
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
