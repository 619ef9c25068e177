import { Injectable } from '@nestjs/common';
import { DomainError, FieldErrors } from '../common/errors/domain-errors';
import { GatewayDrivers, type GatewayDriver, type SettingValue } from './gateway-drivers';
import type { Gateway } from './gateway.entity';
import { SecretsCipher } from './secrets-cipher';
import { changeSettings } from './settings-validation';

/** What the admin API shows of a gateway's settings: never a secret (contract §20). */
export interface SettingsView {
  settings: Record<string, SettingValue>;
  /** Names of the secrets that hold a value. */
  secrets_set: string[];
}

/** The plain settings and the names of the secrets set: what answers and pages may show. */
export const settingsView = (gateway: Pick<Gateway, 'settings' | 'secrets'>): SettingsView => ({
  settings: { ...(gateway.settings ?? {}) },
  secrets_set: Object.keys(gateway.secrets ?? {}).sort(),
});

/** A person has to act (the key, or the secrets again): clients need not ask again soon. */
const UNREADABLE_RETRY_AFTER_SECONDS = 60;

/**
 * A gateway whose secrets this service cannot decrypt (a wrong or missing SECRETS_KEY): every route
 * that needs its settings answers 503 naming them (contract §20.1: never a 500), until the service
 * runs with the key they were saved under, or they are saved again.
 */
export class GatewaySecretsUnreadable extends DomainError {
  readonly status = 503;
  constructor(
    readonly gatewayCode: string,
    readonly secretNames: readonly string[],
  ) {
    super(
      `Gateway "${gatewayCode}" cannot be used now: its ${secretNames.length === 1 ? 'secret' : 'secrets'} ` +
        `${secretNames.join(', ')} cannot be decrypted (neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS ` +
        'is the key they were saved under). Start the service with that key, or save them again.',
    );
    this.headers['Retry-After'] = String(UNREADABLE_RETRY_AFTER_SECONDS);
  }
}

/** The settings columns a create or patch stores. */
export interface StoredSettingsColumns {
  settings: Record<string, SettingValue> | null;
  secrets: Record<string, string> | null;
}

/** The gateway a settings change applies to: its stored columns and what it becomes. */
export interface SettingsTarget {
  code: string;
  pg: string;
  type: Gateway['type'];
  /** The columns stored so far (none for a new gateway, or when its pg changes). */
  stored: StoredSettingsColumns;
}

/** The associated data of a secret: binds it to its gateway and setting name. */
const secretContext = (code: string, name: string): string => `gateway:${code}:${name}`;

/**
 * A gateway's driver settings: read with secrets decrypted and defaults applied ({@link of}, for the
 * drivers) and changed by a create or patch ({@link change}).
 */
@Injectable()
export class GatewaySettings {
  constructor(
    private readonly drivers: GatewayDrivers,
    private readonly cipher: SecretsCipher,
  ) {}

  /**
   * Every setting of the gateway's driver that has a value: the stored ones (secrets decrypted),
   * then the driver's defaults and those that depend on the gateway (KNET's hosts: test ones on a
   * sandbox gateway). A gateway whose pg names no driver gets its plain settings as stored.
   */
  of(gateway: Gateway): Record<string, SettingValue> {
    const values: Record<string, SettingValue> = { ...(gateway.settings ?? {}) };
    const unreadable: string[] = [];
    for (const [name, stored] of Object.entries(gateway.secrets ?? {})) {
      const plain = this.decrypted(gateway.code, name, stored);
      if (plain === null) unreadable.push(name);
      else values[name] = plain;
    }
    if (unreadable.length > 0) throw new GatewaySecretsUnreadable(gateway.code, unreadable.sort());
    const driver = this.drivers.find(gateway.pg);
    if (!driver) return values;
    for (const setting of driver.settings) {
      if (values[setting.name] === undefined && setting.default !== null)
        values[setting.name] = setting.default;
    }
    for (const [name, value] of Object.entries(driver.gatewayDefaults?.(gateway) ?? {})) {
      values[name] ??= value;
    }
    return values;
  }

  /**
   * The names of the gateway's secrets this service cannot decrypt (sorted; [] when all are readable):
   * encrypted under a key that is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS, or altered.
   */
  unreadableSecrets(gateway: Pick<Gateway, 'code' | 'secrets'>): string[] {
    return Object.entries(gateway.secrets ?? {})
      .filter(([name, stored]) => this.decrypted(gateway.code, name, stored) === null)
      .map(([name]) => name)
      .sort();
  }

  private decrypted(code: string, name: string, stored: string): string | null {
    try {
      return this.cipher.decrypt(stored, secretContext(code, name));
    } catch {
      return null;
    }
  }

  /**
   * Validates `sent` (the request's `settings`; undefined when left out) against the driver and
   * merges it into the stored columns, encrypting the secrets sent. Throws {@link FieldErrors}
   * under `settings.<key>`; a secret sent while no SECRETS_KEY exists is refused there too.
   */
  change(driver: GatewayDriver, target: SettingsTarget, sent: unknown): StoredSettingsColumns {
    const storedSecrets = target.stored.secrets ?? {};
    const change = changeSettings(
      driver,
      { settings: target.stored.settings ?? {}, secretNames: Object.keys(storedSecrets) },
      sent,
      target.type === 'sandbox',
    );
    const sentSecrets = Object.keys(change.secrets);
    if (sentSecrets.length > 0 && !this.cipher.canEncrypt) {
      const refusal = [
        'Secrets cannot be stored: SECRETS_KEY is not set on the service (see docs/operations.md).',
      ];
      throw new FieldErrors({ settings: Object.fromEntries(sentSecrets.map((name) => [name, refusal])) });
    }
    const secrets = { ...storedSecrets };
    for (const name of change.removedSecrets) delete secrets[name];
    for (const [name, plain] of Object.entries(change.secrets)) {
      secrets[name] = this.cipher.encrypt(plain, secretContext(target.code, name));
    }
    return {
      settings: Object.keys(change.settings).length > 0 ? change.settings : null,
      secrets: Object.keys(secrets).length > 0 ? secrets : null,
    };
  }
}

/** Re-encrypts one gateway's secrets under the current key (`npm run secrets:rotate`). */
export function reencryptSecrets(
  cipher: SecretsCipher,
  code: string,
  secrets: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secrets).map(([name, stored]) => {
      const context = secretContext(code, name);
      return [name, cipher.encrypt(cipher.decrypt(stored, context), context)];
    }),
  );
}
