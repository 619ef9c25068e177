import type { Response } from 'express';
import { html, SafeHtml } from '../common/html/html';
import { formFields, type FormFieldSpec, type FormState, type FormValues } from './console-forms';
import type { ConsoleRequest, ConsoleResponder } from './console-responder';
import type { ConsoleStrings } from './console-i18n';
import { csrfInput, type ConsoleFrame } from './console-templates';

export interface Column<T> {
  label: string;
  value: (row: T) => string;
}

/** A resource's list page: its rows (with an edit link or a delete button each) and its "add" form. */
export interface ListPage<T> {
  title: string;
  /** The page's path, where its "add" form posts to. */
  path: string;
  rows: T[];
  columns: Column<T>[];
  rowName: (row: T) => string;
  editHref?: (row: T) => string;
  deleteAction?: (row: T) => string;
  specs: FormFieldSpec[];
  /** More fields after the specs' ones (the gateway form's driver settings), and the error keys they show. */
  extra?: ExtraFields;
}

export interface ExtraFields {
  html: (state: FormState) => SafeHtml;
  errorKeys: string[];
}

/** One resource's edit page: the form posts to `path`, its delete button to `path/delete`. */
export interface EditPage {
  title: string;
  path: string;
  specs: FormFieldSpec[];
  /** Hints under fields, by field name. */
  hints?: Record<string, string>;
  extra?: ExtraFields;
}

/**
 * A list page's state before any submission: `values` in its "add" form, and an `ok` notice when the
 * query's `removed` names one of `removed` (what the last removal did → what to say).
 */
export function listState(query: unknown, values: FormValues, removed: Record<string, string>): FormState {
  const done = (query as Record<string, unknown> | undefined)?.removed;
  const text = typeof done === 'string' && Object.hasOwn(removed, done) ? removed[done] : null;
  return { status: 200, values, notice: text === null ? null : { kind: 'ok', text } };
}

/** Answers with a resource's list page or edit page, its form as `state` has it. */
export function sendResourcePage<T>(
  pages: ConsoleResponder,
  res: Response,
  request: ConsoleRequest,
  state: FormState,
  page: ListPage<T> | EditPage,
): void {
  const body =
    'rows' in page ? resourceListBody(request, page, state) : resourceEditBody(request, page, state);
  pages.page(res, state.status, request, frameOf(request, page, state), body);
}

/** The page's title and path; "fix the errors" above the form when it has errors, else `state`'s notice. */
function frameOf(
  request: ConsoleRequest,
  page: { title: string; path: string },
  state: FormState,
): Pick<ConsoleFrame, 'title' | 'path' | 'notice'> {
  const notice = state.errors
    ? { kind: 'error' as const, text: request.t.fixErrors }
    : (state.notice ?? null);
  return { title: page.title, path: page.path, notice };
}

/** A resource's list (with an edit link or a delete button per row) and its "add" form below. */
export function resourceListBody<T>(
  request: { t: ConsoleStrings; csrf: string },
  page: ListPage<T>,
  state: FormState,
): SafeHtml {
  const { t } = request;
  const table =
    page.rows.length === 0
      ? html`<p>${t.none}</p>`
      : html`<table>
          <thead>
            <tr>
              ${page.columns.map((c) => html`<th scope="col">${c.label}</th>`)}
              <th scope="col"><span class="visually-hidden">${t.edit}</span></th>
            </tr>
          </thead>
          <tbody>
            ${page.rows.map(
              (row) =>
                html`<tr>
                  ${page.columns.map((c) => html`<td>${c.value(row)}</td>`)}
                  <td>
                    ${
                      page.editHref
                        ? html`<a href="${page.editHref(row)}" aria-label="${t.edit} ${page.rowName(row)}"
                            >${t.edit}</a
                          >`
                        : ''
                    }
                    ${
                      page.deleteAction
                        ? html`<form method="post" action="${page.deleteAction(row)}" class="inline">
                            ${csrfInput(request.csrf)}
                            <button
                              type="submit"
                              class="secondary"
                              aria-label="${t.remove} ${page.rowName(row)}"
                            >
                              ${t.remove}
                            </button>
                          </form>`
                        : ''
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return html`${table}
    <h2 id="add">${t.add}</h2>
    <form method="post" action="${page.path}" class="card" novalidate aria-labelledby="add">
      ${csrfInput(request.csrf)} ${fieldsOf(page, t, state)}
      <button type="submit" class="primary">${t.add}</button>
    </form>`;
}

/** One resource's edit form, and its delete button. */
export function resourceEditBody(
  request: { t: ConsoleStrings; csrf: string },
  page: EditPage,
  state: FormState,
): SafeHtml {
  const { t, csrf } = request;
  return html`<form method="post" action="${page.path}" class="card" novalidate>
      ${csrfInput(csrf)} ${fieldsOf(page, t, state)}
      <button type="submit" class="primary">${t.save}</button>
    </form>
    <form method="post" action="${page.path}/delete">
      ${csrfInput(csrf)}
      <button type="submit" class="secondary">${t.remove}</button>
    </form>`;
}

/** The form's fields: the specs' ones, then the page's extra ones. */
function fieldsOf(
  page: { specs: FormFieldSpec[]; extra?: ExtraFields; hints?: Record<string, string> },
  t: ConsoleStrings,
  state: FormState,
): SafeHtml {
  const shown = formFields(
    page.specs,
    t.labels,
    state.values,
    state.errors,
    page.extra?.errorKeys,
    page.hints,
  );
  return page.extra ? html`${shown}${page.extra.html(state)}` : shown;
}
