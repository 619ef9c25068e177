import { html, raw, SafeHtml } from '../common/html/html';
import { FieldErrors, StateConflict, type FieldErrorTree } from '../common/errors/domain-errors';
import {
  checkbox,
  type ConsoleFrame,
  type FieldErrorList,
  otherErrors,
  textField,
} from './console-templates';
import { validateAs } from './form-validation';

/**
 * Generic form fields of the console's resource pages (currencies, users, gateways): how each
 * is shown, read back from a submitted form, and handed to the admin API's DTO.
 */
export type FieldKind = 'text' | 'password' | 'checkbox' | 'list' | 'select';

export interface FormFieldSpec {
  name: string;
  kind: FieldKind;
  /** A required field's empty value goes to the DTO as '' (its "blank" message); others are left out. */
  required?: boolean;
  /** '' is a value of its own (the icon: "the default one"), sent as such, not left out. */
  emptyIsValue?: boolean;
  options?: readonly string[];
}

export type FormValues = Record<string, string | boolean>;

/** The submitted fields as the form shows them again (lists as typed). */
export function readForm(specs: FormFieldSpec[], body: unknown): FormValues {
  const sent = (body ?? {}) as Record<string, unknown>;
  return Object.fromEntries<string | boolean>(
    specs.map((spec) => {
      const value = sent[spec.name];
      if (spec.kind === 'checkbox') return [spec.name, value === 'true'];
      return [spec.name, typeof value === 'string' ? value : ''];
    }),
  );
}

/** What the API would receive for these values: lists split at commas and spaces, empty optionals left out. */
export function toApiInput(specs: FormFieldSpec[], values: FormValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const spec of specs) {
    const value = values[spec.name];
    if (spec.kind === 'checkbox') input[spec.name] = value === true;
    else if (spec.kind === 'list') {
      input[spec.name] = String(value)
        .split(/[\s,]+/)
        .filter((item) => item !== '');
    } else if (value !== '' || spec.required || spec.emptyIsValue) input[spec.name] = value;
  }
  return input;
}

/** A form page to show again: its answer status, the values as typed, and their errors or a notice. */
export interface FormState {
  status: number;
  values: FormValues;
  errors?: FieldErrorTree;
  notice?: ConsoleFrame['notice'];
}

/**
 * Reads a submitted form, checks it with the admin API's DTO and hands the valid value to `save`.
 * Null once saved; else the form to show again (password fields emptied): 400 with the field errors
 * of the check or of the save, or, with `showConflicts`, 409 with a {@link StateConflict}'s message.
 */
export async function submitForm<T extends object>(
  body: unknown,
  specs: FormFieldSpec[],
  dto: new () => T,
  save: (value: T) => Promise<unknown>,
  options: { showConflicts?: boolean } = {},
): Promise<FormState | null> {
  const values = readForm(specs, body);
  const shown = Object.fromEntries(specs.map((s) => [s.name, s.kind === 'password' ? '' : values[s.name]]));
  const checked = await validateAs(dto, toApiInput(specs, values));
  if (checked.errors) return { status: 400, values: shown, errors: checked.errors };
  try {
    await save(checked.value);
    return null;
  } catch (error) {
    if (error instanceof FieldErrors) return { status: 400, values: shown, errors: error.errors };
    if (options.showConflicts && error instanceof StateConflict) return conflictState(shown, error);
    throw error;
  }
}

/** The form shown again after a refused change: 409, the conflict's message above it. */
export function conflictState(values: FormValues, conflict: StateConflict): FormState {
  return { status: 409, values, notice: { kind: 'error', text: conflict.message } };
}

/** An entity's API representation as form values (lists joined, booleans kept). */
export function toFormValues(specs: FormFieldSpec[], dto: Record<string, unknown>): FormValues {
  return Object.fromEntries<string | boolean>(
    specs.map((spec) => {
      const value = dto[spec.name];
      if (spec.kind === 'checkbox') return [spec.name, value === true];
      if (spec.kind === 'password') return [spec.name, ''];
      if (Array.isArray(value)) return [spec.name, value.join(', ')];
      return [spec.name, typeof value === 'string' || typeof value === 'number' ? String(value) : ''];
    }),
  );
}

export function formFields(
  specs: FormFieldSpec[],
  labels: Record<string, string>,
  values: FormValues,
  errors: FieldErrorList | undefined,
  /** Error keys that fields outside the specs show (so they are not listed again below). */
  shownElsewhere: string[] = [],
  /** A hint under a field, by field name (e.g. "leave empty to keep" under a password). */
  hints: Record<string, string> = {},
): SafeHtml {
  const label = (name: string) => labels[name] ?? name;
  const fields = specs.map((spec) => {
    const value = values[spec.name];
    if (spec.kind === 'checkbox') return checkbox(spec.name, label(spec.name), value === true, errors);
    if (spec.kind === 'select') {
      const messages = Array.isArray(errors?.[spec.name]) ? (errors[spec.name] as string[]) : [];
      return html`<div class="field">
        <label for="${spec.name}">${label(spec.name)}</label>
        <select id="${spec.name}" name="${spec.name}" ${messages.length ? raw('aria-invalid="true"') : ''}>
          ${spec.required ? '' : html`<option value="">—</option>`}
          ${(spec.options ?? []).map(
            (option) =>
              html`<option value="${option}" ${value === option ? raw('selected') : ''}>${option}</option>`,
          )}
        </select>
        ${messages.length ? html`<p class="error" id="${spec.name}-error">${messages.join(' ')}</p>` : ''}
      </div>`;
    }
    return textField(spec.name, label(spec.name), String(value ?? ''), errors, {
      type: spec.kind === 'password' ? 'password' : 'text',
      required: spec.required,
      autocomplete: spec.kind === 'password' ? 'new-password' : undefined,
      hint: hints[spec.name],
    });
  });
  return html`${fields}${otherErrors(errors, [...specs.map((s) => s.name), ...shownElsewhere])}`;
}
