import { CSRF_FIELD } from '../checkout/csrf';
import type { PageLanguage } from '../checkout/i18n';
import { FAVICON_PATH } from '../checkout/templates';
import { html, htmlDocument, raw, SafeHtml } from '../common/html/html';
import type { ConsoleStrings } from './console-i18n';
import { consoleStrings } from './console-i18n';

export const CONSOLE_STYLESHEET_PATH = '/admin/static/console.css';
/** The same form field as the checkout pages' token. */
export const CONSOLE_CSRF_FIELD = CSRF_FIELD;

/** A form's field errors as the API reports them: field → messages. */
export type FieldErrorList = Record<string, unknown>;

export interface SignedIn {
  username: string;
  csrfToken: string;
}

export interface ConsoleFrame {
  language: PageLanguage;
  title: string;
  /** The path of this page (the language switch links back to it). */
  path: string;
  signedIn: SignedIn | null;
  body: SafeHtml;
  /** A notice above the body: `ok` after a change, `error` when nothing was written. */
  notice?: { kind: 'ok' | 'error'; text: string } | null;
}

const withLang = (path: string, lang: PageLanguage): string =>
  `${path}${path.includes('?') ? '&' : '?'}lang=${lang}`;

/** Every console page: the bar (name, sections, language switch, sign-out), a notice, the body. */
export function consolePage(frame: ConsoleFrame): string {
  const t = consoleStrings(frame.language);
  const nav = frame.signedIn
    ? html`<nav aria-label="${t.console}">
          <a href="/admin/transactions">${t.nav.transactions}</a>
          <a href="/admin/config">${t.nav.config}</a>
          <a href="/admin/api-keys">${t.nav.apiKeys}</a>
          <a href="/admin/gateways">${t.nav.gateways}</a>
          <a href="/admin/currencies">${t.nav.currencies}</a>
          <a href="/admin/users">${t.nav.users}</a>
        </nav>
        <form method="post" action="/admin/sign-out" class="inline">
          ${csrfInput(frame.signedIn.csrfToken)}
          <span class="who">${frame.signedIn.username}</span>
          <button type="submit" class="link">${t.signOut}</button>
        </form>`
    : '';
  const notice = frame.notice
    ? html`<p
        class="notice notice-${frame.notice.kind}"
        role="${frame.notice.kind === 'error' ? 'alert' : 'status'}"
      >
        ${frame.notice.text}
      </p>`
    : '';
  return htmlDocument({
    language: frame.language,
    dir: t.dir,
    title: `${frame.title} · ${t.console}`,
    stylesheet: CONSOLE_STYLESHEET_PATH,
    icon: FAVICON_PATH,
    body: html`<header class="bar">
        <strong>${t.console}</strong>
        ${nav}
        <a class="lang" href="${withLang(frame.path, t.otherLanguage.code)}" lang="${t.otherLanguage.code}"
          >${t.otherLanguage.label}</a
        >
      </header>
      <main aria-labelledby="page-title">
        <h1 id="page-title">${frame.title}</h1>
        ${notice} ${frame.body}
      </main>`,
  });
}

export const csrfInput = (token: string): SafeHtml =>
  html`<input type="hidden" name="${CONSOLE_CSRF_FIELD}" value="${token}" />`;

function messagesOf(errors: FieldErrorList | undefined, name: string): string[] {
  const found = errors?.[name];
  return Array.isArray(found) ? found.map(String) : [];
}

export interface FieldOptions {
  type?: 'text' | 'password' | 'url' | 'email' | 'datetime-local';
  hint?: string;
  required?: boolean;
  autocomplete?: string;
}

/** A labelled input with its hint and its errors beside it (aria-invalid, aria-describedby). */
export function textField(
  name: string,
  label: string,
  value: string,
  errors: FieldErrorList | undefined,
  options: FieldOptions = {},
): SafeHtml {
  const messages = messagesOf(errors, name);
  const described = [options.hint ? `${name}-hint` : '', messages.length ? `${name}-error` : '']
    .filter(Boolean)
    .join(' ');
  return html`<div class="field">
    <label for="${name}">${label}</label>
    <input
      id="${name}"
      name="${name}"
      type="${options.type === 'datetime-local' ? 'text' : (options.type ?? 'text')}"
      value="${value}"
      ${options.required ? raw('required') : ''}
      ${options.autocomplete ? html`autocomplete="${options.autocomplete}"` : ''}
      ${described ? html`aria-describedby="${described}"` : ''}
      ${messages.length ? raw('aria-invalid="true"') : ''}
    />
    ${options.hint ? html`<p class="hint" id="${name}-hint">${options.hint}</p>` : ''}
    ${messages.length ? html`<p class="error" id="${name}-error">${messages.join(' ')}</p>` : ''}
  </div>`;
}

export function checkbox(
  name: string,
  label: string,
  checked: boolean,
  errors: FieldErrorList | undefined,
): SafeHtml {
  const messages = messagesOf(errors, name);
  return html`<div class="field">
    <label class="choice"
      ><input type="checkbox" id="${name}" name="${name}" value="true" ${checked ? raw('checked') : ''} />
      ${label}</label
    >
    ${messages.length ? html`<p class="error" id="${name}-error">${messages.join(' ')}</p>` : ''}
  </div>`;
}

/** Errors of the form as a whole (fields the form does not show), so none is ever hidden. */
export function otherErrors(errors: FieldErrorList | undefined, shown: string[]): SafeHtml {
  const rest = Object.entries(errors ?? {}).filter(([name]) => !shown.includes(name));
  if (rest.length === 0) return html``;
  return html`<ul class="error">
    ${rest.map(([name, messages]) => html`<li>${name}: ${JSON.stringify(messages)}</li>`)}
  </ul>`;
}

/** `2026-11-26 01:33:04 UTC`: unambiguous in every language. */
export const dateText = (value: string | Date | null | undefined): string =>
  value
    ? new Date(value)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, ' UTC')
    : '';

/**
 * A date as markup: a `<time>` with its ISO value that reads left-to-right in an Arabic page too
 * (else the bidi algorithm shows `UTC 01:33:04 2026-11-26`). Empty for no date.
 */
export const dateTime = (value: string | Date | null | undefined): SafeHtml =>
  value
    ? html`<time datetime="${new Date(value).toISOString()}" dir="ltr">${dateText(value)}</time>`
    : html``;

export type { ConsoleStrings };
