import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppConfig } from '../config/app-config';

/** The prefix and version of a stored secret: `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url). */
const FORMAT = 'v1';
const IV_BYTES = 12;

/** A short, non-secret name of a key: the first 8 hex digits of its SHA-256. */
export const keyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** The key id a stored value was encrypted under (null: not a stored secret). */
export function storedKeyId(stored: string): string | null {
  const parts = stored.split('.');
  return parts.length === 5 && parts[0] === FORMAT ? parts[1] : null;
}

export class SecretsKeyMissing extends Error {
  constructor() {
    super('SECRETS_KEY is not set: gateway secrets cannot be stored.');
  }
}

/**
 * Encrypts gateway secrets at rest (contract §20 "Secrets at rest"): AES-256-GCM under
 * `SECRETS_KEY`, each value noting the id of its key. `SECRETS_KEY_PREVIOUS` (and, on the embedded
 * database, a key file left from before SECRETS_KEY was set) still decrypt older values until
 * `npm run secrets:rotate` encrypts them again. On the embedded database with no SECRETS_KEY, the
 * first start creates a random key in `SECRETS_KEY_FILE` (default: `secrets.key` beside the
 * SQLite file); on MySQL with no SECRETS_KEY, secrets cannot be stored and the start says so.
 * The associated data binds a value to its gateway and setting: a value copied elsewhere fails.
 */
@Injectable()
export class SecretsCipher implements OnModuleInit {
  private readonly logger = new Logger('GatewaySecrets');
  private current: Buffer | null = null;
  private readonly readable = new Map<string, Buffer>();

  constructor(private readonly config: AppConfig) {
    this.load();
  }

  onModuleInit(): void {
    if (!this.current) {
      this.logger.warn(
        'SECRETS_KEY is not set: gateways whose driver needs secrets (mpgs, knet, stripe) cannot be saved. ' +
          'Set SECRETS_KEY to 32 random bytes, base64-encoded (openssl rand -base64 32).',
      );
    }
  }

  /** Whether secrets can be stored (a current key exists). */
  get canEncrypt(): boolean {
    return this.current !== null;
  }

  /** The id of the current key, or null. */
  get currentKeyId(): string | null {
    return this.current ? keyId(this.current) : null;
  }

  encrypt(plain: string, context: string): string {
    if (!this.current) throw new SecretsKeyMissing();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'));
    return [FORMAT, keyId(this.current), ...parts].join('.');
  }

  decrypt(stored: string, context: string): string {
    const parts = stored.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new Error('Not an encrypted gateway secret.');
    const [, id, iv, tag, data] = parts;
    const key = this.readable.get(id);
    if (!key) {
      throw new Error(
        `A gateway secret is encrypted under key ${id}, which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS.`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }

  private load(): void {
    const { key, previousKey, keyFile } = this.config.secrets;
    const fileKey = keyFile ? this.keyFromFile(keyFile, key === null) : null;
    this.current = key ?? fileKey;
    for (const k of [this.current, previousKey, fileKey]) if (k) this.readable.set(keyId(k), k);
  }

  /** The key file's key; created (mode 600) when `create` and it does not exist yet. */
  private keyFromFile(path: string, create: boolean): Buffer | null {
    if (!existsSync(path)) {
      if (!create) return null;
      mkdirSync(dirname(path), { recursive: true });
      try {
        writeFileSync(path, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
        this.logger.warn(`SECRETS_KEY is not set: created a key for gateway secrets in ${path}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // another process won
      }
    }
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key.`);
    return key;
  }
}
