import { html, raw, type SafeHtml } from '../common/html/html';
import type { FieldErrorTree } from '../common/errors/domain-errors';
import type { GatewayDriver } from '../gateways/gateway-drivers';
import type { SettingsView } from '../gateways/gateway-settings';
import type { FormValues } from './console-forms';
import { textField } from './console-templates';

/**
 * The gateway form's driver settings (contract §19, §20): one fieldset per driver, named by its
 * `data-driver`; the stylesheet shows only the one whose pg is picked in the form's `pg` select
 * (no script). Secrets are password inputs, never filled: one left empty is not changed.
 */

/** The form field of a driver's setting: `setting-<pg>-<name>`. */
export const settingField = (pg: string, name: string): string => `setting-${pg}-${name}`;

/** The stylesheet rules that show the fieldset of the picked driver only (one rule per driver). */
export const driverFieldsetCss = (drivers: readonly GatewayDriver[]): string =>
  [
    'fieldset[data-driver] { display: none; border: 1px solid var(--line); border-radius: 8px; margin: 0 0 0.75rem; }',
    ...drivers.map(
      (d) =>
        `form:has(select[name="pg"] option[value="${d.pg}"]:checked) fieldset[data-driver="${d.pg}"] { display: block; }`,
    ),
  ].join('\n');

/** The form values of a stored gateway's settings (its own driver's fieldset; secrets stay empty). */
export function settingsFormValues(pg: string, view: SettingsView): FormValues {
  return Object.fromEntries(
    Object.entries(view.settings).map(([name, value]) => [
      settingField(pg, name),
      // A routing gateway's routes are typed as JSON (contract §21).
      Array.isArray(value) ? JSON.stringify(value) : String(value),
    ]),
  );
}

/** The non-secret setting values as typed, to show the form again after a refusal. */
export function typedSettingsValues(drivers: readonly GatewayDriver[], body: unknown): FormValues {
  const sent = (body ?? {}) as Record<string, unknown>;
  const values: FormValues = {};
  for (const driver of drivers) {
    for (const setting of driver.settings) {
      const field = settingField(driver.pg, setting.name);
      if (!setting.secret && typeof sent[field] === 'string') values[field] = sent[field];
    }
  }
  return values;
}

/**
 * The API's `settings` for the submitted form and its picked driver: filled fields are sent; an
 * empty one is left out, except on an edit where a stored plain setting emptied is removed (null).
 * An empty secret is left out: unchanged.
 */
export function settingsFromForm(
  driver: GatewayDriver | null,
  body: unknown,
  stored: SettingsView | null,
): Record<string, unknown> | undefined {
  if (!driver) return undefined;
  const sent = (body ?? {}) as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const setting of driver.settings) {
    const raw = sent[settingField(driver.pg, setting.name)];
    const value = typeof raw === 'string' ? raw.trim() : '';
    if (value !== '') settings[setting.name] = value;
    else if (!setting.secret && stored && stored.settings[setting.name] !== undefined)
      settings[setting.name] = null;
  }
  return settings;
}

/** The fieldsets of every driver, errors of `settings.<key>` beside the picked driver's fields. */
export function driverFieldsets(
  drivers: readonly GatewayDriver[],
  values: FormValues,
  errors: FieldErrorTree | undefined,
  stored: { pg: string; view: SettingsView } | null,
  strings: { settingsOf: (driver: string) => string; secretSet: string; secretUnset: string },
): SafeHtml {
  const picked = typeof values.pg === 'string' ? values.pg : '';
  const settingErrors = errors?.settings && !Array.isArray(errors.settings) ? errors.settings : {};
  return html`${drivers.map((driver) => {
    const fieldErrors =
      driver.pg === picked
        ? Object.fromEntries(
            Object.entries(settingErrors).map(([name, messages]) => [
              settingField(driver.pg, name),
              messages,
            ]),
          )
        : {};
    const fields = driver.settings.map((setting) => {
      const name = settingField(driver.pg, setting.name);
      const isSet = stored?.pg === driver.pg && stored.view.secrets_set.includes(setting.name);
      const hint = setting.secret
        ? `${isSet ? strings.secretSet : strings.secretUnset} ${setting.description}`
        : setting.default !== null
          ? `${setting.description} (${String(setting.default)})`
          : setting.description;
      return textField(name, setting.name, setting.secret ? '' : String(values[name] ?? ''), fieldErrors, {
        type: setting.secret ? 'password' : 'text',
        required: setting.required && !isSet,
        autocomplete: setting.secret ? 'new-password' : 'off',
        hint,
      });
    });
    return html`<fieldset data-driver="${driver.pg}">
      <legend>${strings.settingsOf(driver.name)}</legend>
      ${fields}
    </fieldset>`;
  })}${raw('')}`;
}
