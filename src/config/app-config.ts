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
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

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
const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/** The environment variables the service reads (SPEC §14), validated once at boot. */
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
  @Matches(/^mysql:\/\/.+/, { message: 'DATABASE_URL must be a mysql://user:pass@host:port/db URL' })
  DATABASE_URL?: string;

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
  WEBHOOK_SIGNING_KEY?: string;

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
}

export type DatabaseConfig = { type: 'mysql'; url: string } | { type: 'sqlite'; path: string };

/** Typed, validated configuration. Injected by class; built only by {@link loadConfig}. */
export class AppConfig {
  readonly port: number;
  readonly publicBaseUrl: string;
  readonly database: DatabaseConfig;
  readonly smtpUrl: string | null;
  readonly smsProviderUrl: string | null;
  readonly adminUsername: string | null;
  readonly adminPassword: string | null;
  readonly webhookSigningKey: string | null;
  readonly webhookAllowPrivate: boolean;
  readonly expirySweepSeconds: number;
  readonly logLevel: string;
  readonly attachmentMaxBytes: number;
  readonly attachmentDir: string;
  readonly authFailureLimit: number;
  readonly authFailureWindowSeconds: number;

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

/** Reads and validates the environment. Throws {@link ConfigError} naming every bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): AppConfig {
  const env = plainToInstance(Env, { ...source });
  const errors = validateSync(env, { forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map(
        (e) =>
          `${e.property}=${JSON.stringify(source[e.property])}: ${Object.values(e.constraints ?? {}).join('; ')}`,
      ),
    );
  }
  if ((env.ADMIN_USERNAME === undefined) !== (env.ADMIN_PASSWORD === undefined)) {
    throw new ConfigError(['ADMIN_USERNAME and ADMIN_PASSWORD must be set together']);
  }
  const port = env.PORT ?? 3000;
  return new AppConfig({
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    database: env.DATABASE_URL
      ? { type: 'mysql', url: env.DATABASE_URL }
      : { type: 'sqlite', path: env.SQLITE_PATH ?? 'data/checkout.sqlite' },
    smtpUrl: env.SMTP_URL ?? null,
    smsProviderUrl: env.SMS_PROVIDER_URL ?? null,
    adminUsername: env.ADMIN_USERNAME ?? null,
    adminPassword: env.ADMIN_PASSWORD ?? null,
    webhookSigningKey: env.WEBHOOK_SIGNING_KEY ?? null,
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE ?? false,
    expirySweepSeconds: env.EXPIRY_SWEEP_SECONDS ?? 30,
    logLevel: env.LOG_LEVEL ?? 'info',
    attachmentMaxBytes: env.ATTACHMENT_MAX_BYTES ?? 2_500_000,
    attachmentDir: env.ATTACHMENT_DIR ?? 'data/attachments',
    authFailureLimit: env.AUTH_FAILURE_LIMIT ?? 10,
    authFailureWindowSeconds: env.AUTH_FAILURE_WINDOW_SECONDS ?? 300,
  } as AppConfig);
}
