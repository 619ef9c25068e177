import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
  ValidateBy,
} from 'class-validator';
import { dirname, join } from 'node:path';
import { parseMysqlUrl, type MysqlUrl } from './mysql-url';
import { placeholderSecrets } from './placeholder-secrets';
import { parseTrustProxy, type TrustProxy } from './trust-proxy';

const toBool = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return value;
  const text = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  return value; // left as is: IsBoolean reports it
};
const toInt = ({ value }: { value: unknown }): unknown =>
  value === undefined || value === ''
    ? undefined
    : typeof value === 'string' && /^-?\d+$/.test(value)
      ? Number(value)
      : value;
/** `5s,1m,5m` — delays with a unit (ms, s, m, h, d). */
const RETRY_SCHEDULE = /^\s*\d+(?:ms|s|m|h|d)\s*(?:,\s*\d+(?:ms|s|m|h|d)\s*)*$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of each delay in a WEBHOOK_RETRY_SCHEDULE list. */
export function parseRetrySchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const [, n, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(part.trim())!;
    return Number(n) * UNIT_MS[unit];
  });
}

/** Default retry delays (contract §6): quick at first, then every 10 h until the max age (~3 days). */
export const DEFAULT_RETRY_SCHEDULE = '5s,1m,5m,30m,2h,5h,10h';

/** 32 bytes, base64-encoded (standard or URL-safe alphabet, padding optional). */
function isSecretsKey(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]{42,43}={0,2}$/.test(value.trim())) return false;
  return Buffer.from(value.trim(), 'base64').length === 32;
}

const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/** An optional secrets key variable (empty means unset): 32 bytes, base64; `message` when it is not. */
function SecretsKeyVariable(message: string): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(emptyToUndefined),
    ValidateBy({
      name: 'isSecretsKey',
      validator: { validate: isSecretsKey, defaultMessage: () => message },
    }),
  );
}

/** The environment variables the service reads (contract §14), validated once at boot. */
class Env {
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @ValidateBy({
    name: 'isMysqlUrl',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseMysqlUrl(value) !== null,
      defaultMessage: () =>
        'DATABASE_URL must be a mysql://user:pass@host:port/db URL (several hosts: mysql://user:pass@h1:3306,h2:3306/db)',
    },
  })
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  DB_POOL_SIZE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  DB_ACQUIRE_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DB_QUERY_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(15)
  DB_WSREP_SYNC_WAIT?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  SQLITE_PATH?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  SMTP_FROM?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  SMS_PROVIDER_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @Matches(/^[\w.@+-]{1,150}$/, { message: 'ADMIN_USERNAME may hold letters, digits and . @ + - _ (1-150)' })
  ADMIN_USERNAME?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(8, { message: 'ADMIN_PASSWORD must be at least 8 characters' })
  ADMIN_PASSWORD?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(16, { message: 'WEBHOOK_SIGNING_KEY must be at least 16 characters' })
  @MaxLength(255, { message: 'WEBHOOK_SIGNING_KEY must be at most 255 characters' })
  WEBHOOK_SIGNING_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(32, { message: 'CARD_FINGERPRINT_KEY must be at least 32 characters' })
  @MaxLength(255, { message: 'CARD_FINGERPRINT_KEY must be at most 255 characters' })
  CARD_FINGERPRINT_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  CARD_FINGERPRINT_KEY_FILE?: string;

  @SecretsKeyVariable('SECRETS_KEY must be 32 random bytes, base64-encoded (openssl rand -base64 32)')
  SECRETS_KEY?: string;

  @SecretsKeyVariable('SECRETS_KEY_PREVIOUS must be 32 bytes, base64-encoded, like SECRETS_KEY')
  SECRETS_KEY_PREVIOUS?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  SECRETS_KEY_FILE?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  EXPIRY_SWEEP_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  PAYMENT_RECONCILE_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  PAYMENT_ATTEMPT_TIMEOUT_SECONDS?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  ATTACHMENT_MAX_BYTES?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  ATTACHMENT_DIR?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  AUTH_FAILURE_LIMIT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  AUTH_FAILURE_WINDOW_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(RETRY_SCHEDULE, {
    message:
      'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of delays like 5s,1m,5m,30m,2h,10h (units ms s m h d)',
  })
  WEBHOOK_RETRY_SCHEDULE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(30 * 86400)
  WEBHOOK_MAX_AGE_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  DISPATCH_INTERVAL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  DISPATCH_LEASE_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  API_KEY_CACHE_MS?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  @MaxLength(255, { message: 'METRICS_TOKEN must be at most 255 characters' })
  METRICS_TOKEN?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1440)
  ADMIN_SESSION_IDLE_MINUTES?: number;

  @IsOptional()
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseTrustProxy(value) !== null,
      defaultMessage: () =>
        'TRUST_PROXY must be false, a number of proxies (0-32), or a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal, uniquelocal (never true: the client could choose its address)',
    },
  })
  TRUST_PROXY?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024 * 1024)
  @Max(1024 * 1024 * 1024)
  BODY_BYTES_IN_FLIGHT?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(8000)
  BODY_WAIT_MS?: number;
}

/** How long a request may wait for a database connection or an answer, and how many a replica holds. */
export interface PoolConfig {
  /** DB_ACQUIRE_TIMEOUT_MS: waiting longer for a connection (or the embedded database) → 503. */
  acquireTimeoutMs: number;
  /**
   * DB_QUERY_TIMEOUT_MS: the longest one statement, and one unit of work's whole run, may take
   * (a hung server is a lost one, contract §17) → 503.
   */
  queryTimeoutMs: number;
  /** DB_POOL_SIZE: connections per replica (MySQL). */
  size: number;
}

export type DatabaseConfig =
  | ({ type: 'mysql'; pool: PoolConfig; wsrepSyncWait: number } & MysqlUrl)
  | { type: 'sqlite'; path: string; pool: PoolConfig };

/** Typed, validated configuration. Injected by class; built only by {@link loadConfig}. */
export class AppConfig {
  readonly port: number;
  readonly publicBaseUrl: string;
  readonly database: DatabaseConfig;
  readonly smtpUrl: string | null;
  /** `From` of notification e-mails. */
  readonly smtpFrom: string;
  readonly smsProviderUrl: string | null;
  readonly adminUsername: string | null;
  readonly adminPassword: string | null;
  readonly webhookSigningKey: string | null;
  readonly webhookAllowPrivate: boolean;
  readonly expirySweepSeconds: number;
  /** How often each replica settles payment attempts left unfinished (contract §17). */
  readonly paymentReconcileSeconds: number;
  /**
   * An attempt still waiting for the gateway's answer after this long is asked about (its request
   * died). Gateway adapters must time out their calls well within it.
   */
  readonly paymentAttemptTimeoutSeconds: number;
  readonly logLevel: string;
  readonly attachmentMaxBytes: number;
  readonly attachmentDir: string;
  /** The saved cards' fingerprint key (contract §15), or the file that keeps a generated one. */
  readonly cardFingerprint: { key: string | null; keyFile: string };
  /**
   * The key that encrypts gateway secrets at rest (contract §20), the one it replaced (still read
   * during a key change), and the file that keeps a generated key on the embedded database (null
   * on MySQL, where the key must be set).
   */
  readonly secrets: { key: Buffer | null; previousKey: Buffer | null; keyFile: string | null };
  readonly authFailureLimit: number;
  readonly authFailureWindowSeconds: number;
  /** Outbox delivery (contract §6): HTTP timeout of one webhook / SMS attempt. */
  readonly webhookTimeoutMs: number;
  /** Delay before retry n (the last one repeats), in ms. */
  readonly webhookRetryDelaysMs: number[];
  /** A delivery not done this long after its event is given up. */
  readonly webhookMaxAgeSeconds: number;
  /** How often each replica's dispatcher looks for due deliveries. */
  readonly dispatchIntervalMs: number;
  /** How long a claimed delivery stays reserved for its worker (a crashed worker's claim expires). */
  readonly dispatchLeaseMs: number;
  /**
   * How long a replica trusts an API key it verified (0: never cached). A key revoked or expired
   * on another replica stops working here within this time; on this replica at once.
   */
  readonly apiKeyCacheMs: number;
  /** A bearer token that may read `GET /metrics` besides admins (contract §18), or null. */
  readonly metricsToken: string | null;
  /** An admin console session unused this long is signed out (contract §19). */
  readonly adminSessionIdleMinutes: number;
  /** Whose `X-Forwarded-For` names the client (contract §3's source address): see trust-proxy.ts. */
  readonly trustProxy: TrustProxy;
  /** contract §17: bytes of request bodies read and parsed at once (each weighs its declared length). */
  readonly bodyBytesInFlight: number;
  /** How long after its request arrived a body may wait for {@link bodyBytesInFlight} room (then 503). */
  readonly bodyWaitMs: number;

  constructor(values: AppConfig) {
    Object.assign(this, values);
    Object.freeze(this);
  }

  get isEmbeddedDatabase(): boolean {
    return this.database.type === 'sqlite';
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const SECRET_VARIABLES = new Set([
  'ADMIN_PASSWORD',
  'WEBHOOK_SIGNING_KEY',
  'CARD_FINGERPRINT_KEY',
  'SECRETS_KEY',
  'SECRETS_KEY_PREVIOUS',
  'METRICS_TOKEN',
]);

/** A bad variable's value as a start-up error shows it: secrets never, a URL's password masked. */
function shownValue(name: string, value: string | undefined): string {
  if (value === undefined) return 'undefined';
  if (SECRET_VARIABLES.has(name)) return '*';
  return JSON.stringify(value.replace(/^([a-z0-9+]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@'));
}

/** Reads and validates the environment. Throws {@link ConfigError} naming every bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): AppConfig {
  const env = plainToInstance(Env, { ...source });
  const errors = validateSync(env, { forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map(
        (e) =>
          `${e.property}=${shownValue(e.property, source[e.property])}: ${Object.values(e.constraints ?? {}).join('; ')}`,
      ),
    );
  }
  if ((env.ADMIN_USERNAME === undefined) !== (env.ADMIN_PASSWORD === undefined)) {
    throw new ConfigError(['ADMIN_USERNAME and ADMIN_PASSWORD must be set together']);
  }
  const placeholders = placeholderSecrets(source);
  if (placeholders.length > 0) {
    throw new ConfigError(
      placeholders.map(
        (name) =>
          `${name}=*: an example value (it contains "change-me"); NODE_ENV=production needs a secret of your own (openssl rand -base64 32)`,
      ),
    );
  }
  if (env.DISPATCH_LEASE_MS !== undefined && env.DISPATCH_LEASE_MS <= (env.WEBHOOK_TIMEOUT_MS ?? 15_000)) {
    throw new ConfigError(['DISPATCH_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS']);
  }
  const port = env.PORT ?? 3000;
  const pool: PoolConfig = {
    acquireTimeoutMs: env.DB_ACQUIRE_TIMEOUT_MS ?? 5000,
    queryTimeoutMs: env.DB_QUERY_TIMEOUT_MS ?? 10_000,
    size: env.DB_POOL_SIZE ?? 20,
  };
  return new AppConfig({
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    database: env.DATABASE_URL
      ? {
          type: 'mysql',
          ...parseMysqlUrl(env.DATABASE_URL)!,
          pool,
          wsrepSyncWait: env.DB_WSREP_SYNC_WAIT ?? 1,
        }
      : { type: 'sqlite', path: env.SQLITE_PATH ?? 'data/checkout.sqlite', pool },
    smtpUrl: env.SMTP_URL ?? null,
    smtpFrom: env.SMTP_FROM ?? 'Checkout <no-reply@localhost>',
    smsProviderUrl: env.SMS_PROVIDER_URL ?? null,
    adminUsername: env.ADMIN_USERNAME ?? null,
    adminPassword: env.ADMIN_PASSWORD ?? null,
    webhookSigningKey: env.WEBHOOK_SIGNING_KEY ?? null,
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE ?? false,
    expirySweepSeconds: env.EXPIRY_SWEEP_SECONDS ?? 30,
    paymentReconcileSeconds: env.PAYMENT_RECONCILE_SECONDS ?? 30,
    paymentAttemptTimeoutSeconds: env.PAYMENT_ATTEMPT_TIMEOUT_SECONDS ?? 120,
    logLevel: env.LOG_LEVEL ?? 'info',
    attachmentMaxBytes: env.ATTACHMENT_MAX_BYTES ?? 2_500_000,
    attachmentDir: env.ATTACHMENT_DIR ?? 'data/attachments',
    cardFingerprint: {
      key: env.CARD_FINGERPRINT_KEY ?? null,
      keyFile: env.CARD_FINGERPRINT_KEY_FILE ?? 'data/card-fingerprint.key',
    },
    secrets: {
      key: env.SECRETS_KEY ? Buffer.from(env.SECRETS_KEY.trim(), 'base64') : null,
      previousKey: env.SECRETS_KEY_PREVIOUS ? Buffer.from(env.SECRETS_KEY_PREVIOUS.trim(), 'base64') : null,
      keyFile: env.DATABASE_URL
        ? null
        : (env.SECRETS_KEY_FILE ?? join(dirname(env.SQLITE_PATH ?? 'data/checkout.sqlite'), 'secrets.key')),
    },
    authFailureLimit: env.AUTH_FAILURE_LIMIT ?? 10,
    authFailureWindowSeconds: env.AUTH_FAILURE_WINDOW_SECONDS ?? 300,
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS ?? 15_000,
    webhookRetryDelaysMs: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_RETRY_SCHEDULE),
    webhookMaxAgeSeconds: env.WEBHOOK_MAX_AGE_SECONDS ?? 3 * 86400,
    dispatchIntervalMs: env.DISPATCH_INTERVAL_MS ?? 1000,
    dispatchLeaseMs:
      env.DISPATCH_LEASE_MS ?? Math.max(60_000, (env.WEBHOOK_TIMEOUT_MS ?? 15_000) * 2 + 10_000),
    apiKeyCacheMs: env.API_KEY_CACHE_MS ?? 5000,
    metricsToken: env.METRICS_TOKEN ?? null,
    adminSessionIdleMinutes: env.ADMIN_SESSION_IDLE_MINUTES ?? 30,
    trustProxy: parseTrustProxy(env.TRUST_PROXY) ?? false,
    bodyBytesInFlight: env.BODY_BYTES_IN_FLIGHT ?? 8 * 1024 * 1024,
    bodyWaitMs: env.BODY_WAIT_MS ?? 2000,
  } as AppConfig);
}
