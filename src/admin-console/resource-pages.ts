import { html, SafeHtml } from '../checkout/templates';
import type { ConsoleStrings } from './console-i18n';
import { formFields, type FormFieldSpec, type FormValues } from './console-forms';
import { csrfInput, type FieldErrorList } from './console-templates';

export interface Column<T> {
  label: string;
  value: (row: T) => string;
}

/** A resource's list (with an edit link or a delete button per row) and its "add" form below. */
export function resourceListBody<T>(options: {
  t: ConsoleStrings;
  csrf: string;
  rows: T[];
  columns: Column<T>[];
  rowName: (row: T) => string;
  editHref?: (row: T) => string;
  deleteAction?: (row: T) => string;
  createAction: string;
  specs: FormFieldSpec[];
  values: FormValues;
  errors?: FieldErrorList;
}): SafeHtml {
  const { t } = options;
  const table =
    options.rows.length === 0
      ? html`<p>${t.none}</p>`
      : html`<table>
          <thead>
            <tr>
              ${options.columns.map((c) => html`<th scope="col">${c.label}</th>`)}
              <th scope="col"><span class="visually-hidden">${t.edit}</span></th>
            </tr>
          </thead>
          <tbody>
            ${options.rows.map(
              (row) =>
                html`<tr>
                  ${options.columns.map((c) => html`<td>${c.value(row)}</td>`)}
                  <td>
                    ${
                      options.editHref
                        ? html`<a
                            href="${options.editHref(row)}"
                            aria-label="${t.edit} ${options.rowName(row)}"
                            >${t.edit}</a
                          >`
                        : ''
                    }
                    ${
                      options.deleteAction
                        ? html`<form method="post" action="${options.deleteAction(row)}" class="inline">
                            ${csrfInput(options.csrf)}
                            <button
                              type="submit"
                              class="secondary"
                              aria-label="${t.remove} ${options.rowName(row)}"
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
    <form method="post" action="${options.createAction}" class="card" novalidate aria-labelledby="add">
      ${csrfInput(options.csrf)} ${formFields(options.specs, t.labels, options.values, options.errors)}
      <button type="submit" class="primary">${t.add}</button>
    </form>`;
}

/** One resource's edit form, and its delete button. */
export function resourceEditBody(options: {
  t: ConsoleStrings;
  csrf: string;
  action: string;
  deleteAction: string;
  specs: FormFieldSpec[];
  values: FormValues;
  errors?: FieldErrorList;
  hint?: string;
}): SafeHtml {
  const { t } = options;
  return html`<form method="post" action="${options.action}" class="card" novalidate>
      ${csrfInput(options.csrf)} ${options.hint ? html`<p class="hint">${options.hint}</p>` : ''}
      ${formFields(options.specs, t.labels, options.values, options.errors)}
      <button type="submit" class="primary">${t.save}</button>
    </form>
    <form method="post" action="${options.deleteAction}">
      ${csrfInput(options.csrf)}
      <button type="submit" class="secondary">${t.remove}</button>
    </form>`;
}
