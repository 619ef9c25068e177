import type { AdminConfigDto } from '../admin/dto/admin-config.dto';
import type { ApiKeyDto } from '../admin/dto/api-key.dto';
import type { PageLanguage } from '../checkout/i18n';
import { html, raw, SafeHtml } from '../common/html/html';
import type { EventDto } from '../events/event-admin.dto';
import type { SearchPage } from '../transactions/transaction-search.service';
import type { TransactionDto } from '../transactions/dto/transaction.dto';
import type { DeliveryStatus } from '../events/delivery.entity';
import type { AttemptResult } from '../payments/payment-attempt.entity';
import { TRANSACTION_STATES, type TransactionState } from '../transactions/transaction-state';
import { consoleStrings, type ConsoleStrings } from './console-i18n';
import { checkbox, csrfInput, dateTime, FieldErrorList, otherErrors, textField } from './console-templates';

/** A masked payment attempt as the console shows it (never more of the card than the last four). */
export interface AttemptView {
  referenceNumber: string;
  pgCode: string;
  result: string;
  responseCode: string;
  amount: string;
  currencyCode: string;
  card: string;
  createdAt: Date;
}

export function signInBody(
  language: PageLanguage,
  loginToken: string,
  username: string,
  errors?: FieldErrorList,
): SafeHtml {
  const t = consoleStrings(language);
  return html`<form method="post" action="/admin/sign-in" class="card narrow">
    ${csrfInput(loginToken)}
    ${textField('username', t.username, username, errors, { required: true, autocomplete: 'username' })}
    ${textField('password', t.password, '', errors, {
      type: 'password',
      required: true,
      autocomplete: 'current-password',
    })}
    <button type="submit" class="primary">${t.signIn}</button>
  </form>`;
}

export interface ConfigForm {
  auto_expire: boolean;
  default_redirect_url: string;
  merchant_name: string;
}

export function configBody(
  language: PageLanguage,
  csrf: string,
  current: AdminConfigDto,
  form: ConfigForm,
  errors?: FieldErrorList,
): SafeHtml {
  const t = consoleStrings(language);
  const keyState =
    current.webhook_signing_key_source === 'admin'
      ? 'database'
      : current.webhook_signing_key_source === 'environment'
        ? 'environment'
        : 'none';
  const shown = ['auto_expire', 'default_redirect_url', 'merchant_name', 'webhook_signing_key'];
  return html`<form method="post" action="/admin/config" class="card" novalidate>
    ${csrfInput(csrf)} ${checkbox('auto_expire', t.autoExpire, form.auto_expire, errors)}
    ${textField('default_redirect_url', t.defaultRedirectUrl, form.default_redirect_url, errors, {
      type: 'url',
    })}
    ${textField('merchant_name', t.merchantName, form.merchant_name, errors, { required: true })}
    ${textField('webhook_signing_key', t.signingKey, '', errors, {
      type: 'password',
      hint: t.signingKeyHint(keyState),
      autocomplete: 'off',
    })}
    ${keyState === 'database' ? checkbox('clear_signing_key', t.clearSigningKey, false, undefined) : ''}
    ${otherErrors(errors, shown)}
    <button type="submit" class="primary">${t.save}</button>
  </form>`;
}

export function apiKeysBody(
  language: PageLanguage,
  csrf: string,
  keys: ApiKeyDto[],
  form: { name: string; expires_at: string },
  errors?: FieldErrorList,
  issuedKey?: string,
): SafeHtml {
  const t = consoleStrings(language);
  const now = Date.now();
  const status = (key: ApiKeyDto): SafeHtml | string =>
    key.revoked_at
      ? t.revokedOn(dateTime(key.revoked_at))
      : key.expires_at && Date.parse(key.expires_at) <= now
        ? t.expiredOn(dateTime(key.expires_at))
        : t.active;
  const issued = issuedKey
    ? html`<div class="card issued" role="status">
        <p>${t.newKey}</p>
        <p><code id="new-api-key">${issuedKey}</code></p>
      </div>`
    : '';
  const rows = keys.map(
    (key) =>
      html`<tr>
        <td>${key.name}</td>
        <td><code>${key.prefix}</code></td>
        <td>${dateTime(key.created_at)}</td>
        <td>${dateTime(key.expires_at)}</td>
        <td>${status(key)}</td>
        <td>
          ${
            key.revoked_at
              ? ''
              : html`<form method="post" action="/admin/api-keys/${key.id}/revoke" class="inline">
                  ${csrfInput(csrf)}
                  <button type="submit" class="secondary" aria-label="${t.revoke} ${key.name}">
                    ${t.revoke}
                  </button>
                </form>`
          }
        </td>
      </tr>`,
  );
  return html`${issued}
    <form method="post" action="/admin/api-keys" class="card" novalidate>
      ${csrfInput(csrf)} ${textField('name', t.name, form.name, errors, { required: true })}
      ${textField('expires_at', t.expiresAt, form.expires_at, errors, { hint: t.expiresAtHint })}
      ${otherErrors(errors, ['name', 'expires_at'])}
      <button type="submit" class="primary">${t.createKey}</button>
    </form>
    ${
      keys.length === 0
        ? html`<p>${t.none}</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">${t.name}</th>
                <th scope="col">${t.prefix}</th>
                <th scope="col">${t.createdAt}</th>
                <th scope="col">${t.expiresAt}</th>
                <th scope="col">${t.status}</th>
                <th scope="col"><span class="visually-hidden">${t.revoke}</span></th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
    }`;
}

export interface SearchForm {
  state: string;
  order_no: string;
  customer_email: string;
  created_after: string;
  created_before: string;
}

export function transactionsBody(
  language: PageLanguage,
  form: SearchForm,
  page: SearchPage | null,
  nextLink: string | null,
  errors?: FieldErrorList,
): SafeHtml {
  const t = consoleStrings(language);
  const states = html`<div class="field">
    <label for="state">${t.state}</label>
    <select id="state" name="state">
      <option value="">${t.anyState}</option>
      ${TRANSACTION_STATES.map(
        (s) => html`<option value="${s}" ${form.state === s ? raw('selected') : ''}>${t.states[s]}</option>`,
      )}
    </select>
    ${Array.isArray(errors?.state) ? html`<p class="error">${(errors.state as string[]).join(' ')}</p>` : ''}
  </div>`;
  const results = !page
    ? ''
    : page.results.length === 0
      ? html`<p>${t.noTransactions}</p>`
      : html`<table>
          <thead>
            <tr>
              <th scope="col">${t.createdAt}</th>
              <th scope="col">${t.state}</th>
              <th scope="col">${t.amount}</th>
              <th scope="col">${t.orderNo}</th>
              <th scope="col">${t.customerEmail}</th>
            </tr>
          </thead>
          <tbody>
            ${page.results.map(
              (tx) =>
                html`<tr>
                  <td>
                    <a href="/admin/transactions/${tx.session_id}">${dateTime(tx.created_at)}</a>
                  </td>
                  <td>
                    ${stateName(t, tx.state)}${tx.deleted_at ? html` <span class="tag">${t.deleted}</span>` : ''}
                  </td>
                  <td class="num"><bdi dir="ltr">${tx.amount} ${tx.currency_code}</bdi></td>
                  <td>${tx.order_no ?? ''}</td>
                  <td>${tx.customer_email}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return html`<form method="get" action="/admin/transactions" class="card filters">
      ${states} ${textField('order_no', t.orderNo, form.order_no, errors)}
      ${textField('customer_email', t.customerEmail, form.customer_email, errors)}
      ${textField('created_after', t.createdAfter, form.created_after, errors, { hint: '2026-11-01T00:00:00Z' })}
      ${textField('created_before', t.createdBefore, form.created_before, errors)}
      ${otherErrors(errors, ['state', 'order_no', 'customer_email', 'created_after', 'created_before'])}
      <button type="submit" class="primary">${t.search}</button>
    </form>
    ${results} ${nextLink ? html`<p><a href="${nextLink}" rel="next">${t.olderPage}</a></p>` : ''}`;
}

/** A state's (or an event's) name in the page's language; as is when it is none we know. */
const stateName = (t: ConsoleStrings, state: string): string =>
  Object.hasOwn(t.states, state) ? t.states[state as TransactionState] : state;

const FIELDS: (keyof TransactionDto)[] = [
  'session_id',
  'state',
  'amount',
  'currency_code',
  'pg_codes',
  'gateway_code',
  'operation',
  'type',
  'order_no',
  'customer_email',
  'customer_phone',
  'paid_amount',
  'captured_amount',
  'refunded_amount',
  'voided_amount',
  'webhook_url',
  'redirect_url',
  'created_at',
  'updated_at',
  'expires_at',
];

/** Dates of the transaction page: shown as `<time>`, read in order in Arabic too. */
const DATE_FIELDS = new Set<keyof TransactionDto>(['created_at', 'updated_at', 'expires_at']);

export function transactionBody(
  language: PageLanguage,
  csrf: string,
  tx: TransactionDto & { deleted_at: string | null },
  attempts: AttemptView[],
  events: EventDto[],
): SafeHtml {
  const t = consoleStrings(language);
  const value = (v: unknown): string | SafeHtml =>
    Array.isArray(v)
      ? v.join(', ')
      : v === null || v === undefined
        ? ''
        : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
          ? String(v)
          : JSON.stringify(v);
  const shown = (f: keyof TransactionDto): string | SafeHtml =>
    f === 'state'
      ? stateName(t, tx.state)
      : DATE_FIELDS.has(f)
        ? dateTime(tx[f] as string | null)
        : value(tx[f]);
  const fields = [
    ...FIELDS.map((f) => [f, shown(f)] as const),
    ['deleted_at', dateTime(tx.deleted_at)] as const,
  ];
  return html`<section aria-labelledby="fields">
      <h2 id="fields">${t.fields}</h2>
      <dl class="fields">
        ${fields.map(
          ([name, v]) =>
            html`<div>
              <dt>${t.transactionFields[name] ?? name}</dt>
              <dd>${v}</dd>
            </div>`,
        )}
      </dl>
    </section>
    <section aria-labelledby="history">
      <h2 id="history">${t.history}</h2>
      <ol class="history">
        ${events.map((e) => html`<li><strong>${stateName(t, e.event)}</strong> <span>${dateTime(e.created_at)}</span></li>`)}
      </ol>
    </section>
    <section aria-labelledby="attempts">
      <h2 id="attempts">${t.attempts}</h2>
      ${
        attempts.length === 0
          ? html`<p>${t.none}</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">${t.createdAt}</th>
                  <th scope="col">pg</th>
                  <th scope="col">${t.result}</th>
                  <th scope="col">${t.card}</th>
                  <th scope="col">${t.amount}</th>
                </tr>
              </thead>
              <tbody>
                ${attempts.map(
                  (a) =>
                    html`<tr>
                      <td>${dateTime(a.createdAt)}</td>
                      <td>${a.pgCode}</td>
                      <td>
                        ${Object.hasOwn(t.attemptResults, a.result) ? t.attemptResults[a.result as AttemptResult] : a.result}
                        <bdi dir="ltr">(${a.responseCode})</bdi>
                      </td>
                      <td><bdi dir="ltr">${a.card}</bdi></td>
                      <td class="num"><bdi dir="ltr">${a.amount} ${a.currencyCode}</bdi></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>
    ${
      tx.routing.length === 0
        ? ''
        : html`<section aria-labelledby="routing">
            <h2 id="routing">${t.routing}</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">${t.createdAt}</th>
                  <th scope="col">pg</th>
                  <th scope="col">${t.result}</th>
                </tr>
              </thead>
              <tbody>
                ${tx.routing.map(
                  (r) =>
                    html`<tr>
                      <td>${dateTime(r.at)}</td>
                      <td>${r.gateway}</td>
                      <td>
                        ${Object.hasOwn(t.routeOutcomes, r.outcome) ? t.routeOutcomes[r.outcome as keyof ConsoleStrings['routeOutcomes']] : r.outcome}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </section>`
    }
    <section aria-labelledby="events">
      <h2 id="events">${t.events}</h2>
      ${events.map(
        (e) =>
          html`<article class="card event">
            <h3>
              ${e.sequence}. ${stateName(t, e.event)} <span class="muted">${dateTime(e.created_at)}</span>
            </h3>
            <table>
              <thead>
                <tr>
                  <th scope="col">${t.channel}</th>
                  <th scope="col">${t.target}</th>
                  <th scope="col">${t.status}</th>
                  <th scope="col">${t.tries}</th>
                  <th scope="col">${t.lastError}</th>
                </tr>
              </thead>
              <tbody>
                ${e.deliveries.map(
                  (d) =>
                    html`<tr>
                      <td>${d.channel}</td>
                      <td>${d.target}</td>
                      <td>
                        ${Object.hasOwn(t.deliveryStatuses, d.status) ? t.deliveryStatuses[d.status as DeliveryStatus] : d.status}
                      </td>
                      <td class="num">${d.attempts}</td>
                      <td>${d.last_error ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
            ${
              tx.webhook_url
                ? html`<form
                    method="post"
                    action="/admin/transactions/${tx.session_id}/events/${e.event_id}/redeliver"
                  >
                    ${csrfInput(csrf)}
                    <button
                      type="submit"
                      class="secondary"
                      aria-label="${t.redeliver} ${e.sequence} ${stateName(t, e.event)}"
                    >
                      ${t.redeliver}
                    </button>
                  </form>`
                : ''
            }
          </article>`,
      )}
    </section>`;
}
