import { FieldErrors } from '../common/errors/domain-errors';
import { LIMITS } from '../common/validation/limits';
import {
  ROUTES_MAX as MAX_ROUTES,
  ROUTE_WEIGHT_MAX,
  ROUTE_WEIGHT_MIN,
  type DriverSetting,
  type GatewayDriver,
  type RouteValue,
  type SettingValue,
} from './gateway-drivers';

/** The longest text a setting may hold (ids, names, passwords, keys). */
export const SETTING_TEXT_MAX = 1000;

/** A gateway's settings as stored: the plain ones, and the names of the secrets holding a value. */
export interface StoredSettings {
  settings: Record<string, SettingValue>;
  secretNames: readonly string[];
}

/** What a create or patch does to a gateway's settings (contract §20 "Configuring a driver"). */
export interface SettingsChange {
  /** The plain (non-secret) settings after the change. */
  settings: Record<string, SettingValue>;
  /** Secrets given a value, in plain text: the caller encrypts them. */
  secrets: Record<string, string>;
  /** Secrets sent as `null`: removed. */
  removedSecrets: string[];
}

/**
 * Checks `sent` (the request's `settings`, or undefined when left out) against the driver and
 * merges it into what is stored: a key sent replaces, a key left out keeps its value (secrets
 * included), `null` removes an optional key. URLs must be https; a sandbox gateway (whose
 * providers are simulators in tests and on developers' machines) may also use http. Throws
 * {@link FieldErrors} under `settings.<key>`, every violation at once.
 */
export function changeSettings(
  driver: GatewayDriver,
  stored: StoredSettings,
  sent: unknown,
  isSandbox: boolean,
): SettingsChange {
  if (sent !== undefined && sent !== null && (typeof sent !== 'object' || Array.isArray(sent))) {
    throw new FieldErrors({ settings: [`Expected a dictionary of items but got type "${typeName(sent)}".`] });
  }
  const errors: Record<string, string[]> = {};
  const settings = { ...stored.settings };
  const secretNames = new Set(stored.secretNames);
  const secrets: Record<string, string> = {};
  const removedSecrets: string[] = [];
  const defined = new Map(driver.settings.map((s) => [s.name, s]));

  for (const [key, value] of Object.entries((sent ?? {}) as Record<string, unknown>)) {
    const setting = defined.get(key);
    if (!setting) {
      errors[key] = [`"${key}" is not a setting of the ${driver.pg} driver.`];
      continue;
    }
    if (value === null) {
      if (setting.required) errors[key] = ['This field is required.'];
      else if (setting.secret) {
        secretNames.delete(key);
        removedSecrets.push(key);
      } else delete settings[key];
      continue;
    }
    const checked = checkValue(setting, value, isSandbox);
    if (isRefusal(checked)) {
      errors[key] = checked.errors;
      continue;
    }
    if (setting.secret) {
      // Secrets are text settings: never a list of routes.
      secrets[key] = Array.isArray(checked) ? JSON.stringify(checked) : String(checked);
      secretNames.add(key);
    } else settings[key] = checked;
  }
  for (const setting of driver.settings) {
    if (errors[setting.name]) continue;
    const present = setting.secret ? secretNames.has(setting.name) : settings[setting.name] !== undefined;
    if (setting.required && !present) errors[setting.name] = ['This field is required.'];
    // A kept value is checked again: the gateway's type may have changed (http URLs).
    else if (!setting.secret && present && !(setting.name in secrets)) {
      const again = checkValue(setting, settings[setting.name], isSandbox);
      if (isRefusal(again)) errors[setting.name] = again.errors;
    }
  }
  if (Object.keys(errors).length > 0) throw new FieldErrors({ settings: errors });
  return { settings, secrets, removedSecrets };
}

const isRefusal = (checked: SettingValue | { errors: string[] }): checked is { errors: string[] } =>
  typeof checked === 'object' && !Array.isArray(checked);

/** The value to store, or the messages that refuse it. */
function checkValue(
  setting: DriverSetting,
  value: unknown,
  isSandbox: boolean,
): SettingValue | { errors: string[] } {
  if (setting.kind === 'integer') return checkInteger(setting, value);
  if (setting.kind === 'boolean') return checkBoolean(value);
  if (setting.kind === 'routes') return checkRoutes(value);
  if (typeof value !== 'string') return { errors: ['Not a valid string.'] };
  if (setting.choices && !setting.choices.includes(value)) {
    return { errors: [`"${value}" is not a valid choice: ${setting.choices.join(', ')}.`] };
  }
  if (value.trim() === '') return { errors: ['This field may not be blank.'] };
  if (setting.length !== undefined && [...value].length !== setting.length) {
    return { errors: [`Ensure this field has exactly ${setting.length} characters.`] };
  }
  const max = setting.kind === 'url' ? LIMITS.url : SETTING_TEXT_MAX;
  if (value.length > max) return { errors: [`Ensure this field has no more than ${max} characters.`] };
  if (setting.kind === 'url') {
    const problem = urlProblem(value, isSandbox) ?? (setting.origin ? originProblem(value) : null);
    if (problem) return { errors: [problem] };
  }
  return value;
}

function checkInteger(setting: DriverSetting, value: unknown): number | { errors: string[] } {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^-?\d+$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isSafeInteger(number)) return { errors: ['A valid integer is required.'] };
  if (setting.min !== undefined && number < setting.min) {
    return { errors: [`Ensure this value is greater than or equal to ${setting.min}.`] };
  }
  if (setting.max !== undefined && number > setting.max) {
    return { errors: [`Ensure this value is less than or equal to ${setting.max}.`] };
  }
  return number;
}

/** `true`/`false`, also as the text a form sends. */
function checkBoolean(value: unknown): boolean | { errors: string[] } {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return { errors: ['Must be a valid boolean.'] };
}

/**
 * A routing gateway's `routes` (contract §21): 1 to {@link MAX_ROUTES} routes, each
 * `{"gateway": "<code>", "weight": 1–100}` (weight optional), no gateway twice. A form sends the
 * list as JSON text. Whether each gateway may be a member is the admin's check (it reads them).
 */
function checkRoutes(value: unknown): RouteValue[] | { errors: string[] } {
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return {
        errors: ['Enter the routes as a JSON list, such as [{"gateway": "mpgs-a"}, {"gateway": "stripe"}].'],
      };
    }
  }
  if (!Array.isArray(list)) return { errors: [`Expected a list of items but got type "${typeName(list)}".`] };
  if (list.length < 1) return { errors: ['Name at least one route.'] };
  if (list.length > MAX_ROUTES)
    return { errors: [`Ensure this field has no more than ${MAX_ROUTES} routes.`] };
  const errors: string[] = [];
  const routes: RouteValue[] = [];
  list.forEach((item: unknown, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      errors.push(`Route ${i + 1}: expected {"gateway": "<code>", "weight": <1-100>}.`);
      return;
    }
    const { gateway, weight, ...rest } = item as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) errors.push(`Route ${i + 1}: "${unknown[0]}" is not a field of a route.`);
    if (typeof gateway !== 'string' || gateway.trim() === '') {
      errors.push(`Route ${i + 1}: "gateway" must name a gateway code.`);
      return;
    }
    if (
      weight !== undefined &&
      (typeof weight !== 'number' ||
        !Number.isInteger(weight) ||
        weight < ROUTE_WEIGHT_MIN ||
        weight > ROUTE_WEIGHT_MAX)
    ) {
      errors.push(
        `Route ${i + 1}: "weight" must be an integer from ${ROUTE_WEIGHT_MIN} to ${ROUTE_WEIGHT_MAX}.`,
      );
    }
    if (routes.some((route) => route.gateway === gateway))
      errors.push(`Gateway "${gateway}" is routed to twice.`);
    routes.push(weight === undefined ? { gateway } : { gateway, weight: weight as number });
  });
  return errors.length > 0 ? { errors } : routes;
}

function urlProblem(value: string, isSandbox: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isSandbox) return null;
  return isSandbox ? 'Enter an http or https URL.' : 'Enter an https URL (http only on a sandbox gateway).';
}

/**
 * contract §20.1 "Settings that cannot work are refused at save": a URL the driver uses as an origin
 * (Stripe's `api_base_url`) with a path, query, fragment or credentials would be dropped or refused
 * at every call.
 */
function originProblem(value: string): string | null {
  const url = new URL(value);
  if (url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password) return null;
  return `Enter an origin only, such as ${url.protocol}//${url.host}: no path, query or fragment.`;
}

const typeName = (value: unknown): string =>
  Array.isArray(value) ? 'list' : typeof value === 'string' ? 'str' : typeof value;
