import { parseMysqlUrl } from './mysql-url';

/**
 * The mark of an example secret: every value in docker/.env.example (and the defaults the compose
 * files once shipped: `change-me-please`, ...) contains it, so a copy of the example is never
 * mistaken for a secret of one's own.
 */
const PLACEHOLDER_MARK = /change-?me/i;

/** The secret variables, and how to find the text an example value would show. */
const SECRETS: Record<string, (value: string) => string | null> = {
  ADMIN_PASSWORD: (value) => value,
  WEBHOOK_SIGNING_KEY: (value) => value,
  CARD_FINGERPRINT_KEY: (value) => value,
  METRICS_TOKEN: (value) => value,
  // 32 bytes, base64: the example's bytes spell the mark.
  SECRETS_KEY: (value) => Buffer.from(value.trim(), 'base64').toString('latin1'),
  SECRETS_KEY_PREVIOUS: (value) => Buffer.from(value.trim(), 'base64').toString('latin1'),
  DATABASE_URL: (value) => parseMysqlUrl(value)?.password ?? null,
};

/**
 * In production (`NODE_ENV=production`, as the container image sets it), the variables that hold
 * an example secret: the start refuses them (docs/operations.md, "In containers"). Elsewhere none:
 * trying the service out with the example values stays possible. Only names are returned, never
 * the values.
 */
export function placeholderSecrets(env: Record<string, string | undefined>): string[] {
  if (env.NODE_ENV !== 'production') return [];
  return Object.entries(SECRETS)
    .filter(([name, shown]) => {
      const value = env[name];
      if (value === undefined || value === '') return false;
      const text = shown(value);
      return text !== null && PLACEHOLDER_MARK.test(text);
    })
    .map(([name]) => name);
}
