import { createHmac } from 'node:crypto';

/** The payload keys the signature covers (contract §6, the public API's scheme). */
export const SIGNED_KEYS = [
  'amount',
  'currency_code',
  'customer_address_city',
  'customer_address_country',
  'customer_address_line1',
  'customer_address_line2',
  'customer_address_postal_code',
  'customer_address_state',
  'customer_email',
  'customer_first_name',
  'customer_last_name',
  'customer_phone',
  'gateway_account',
  'gateway_name',
  'order_no',
  'reference_number',
  'result',
  'state',
] as const;

/**
 * The body `signature` / `Signature` header: of the signed keys, those with a non-empty value,
 * sorted by key, concatenated as `key + value`, HMAC-SHA256 with the key's UTF-8 bytes, lowercase hex.
 */
export function payloadSignature(payload: Record<string, unknown>, key: string): string {
  const message = [...SIGNED_KEYS]
    .sort()
    .map((k) => [k, scalarText(payload[k])] as const)
    .filter(([, value]) => value !== '')
    .map(([k, value]) => `${k}${value}`)
    .join('');
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(message, 'utf8').digest('hex');
}

/** The text of a scalar payload value; objects never occur among the signed keys. */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/**
 * Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with
 * the key's UTF-8 bytes as the secret (receivers use `whsec_` + base64 of those bytes).
 */
export function standardWebhookSignature(
  id: string,
  timestampSeconds: number,
  body: string,
  key: string,
): string {
  const mac = createHmac('sha256', Buffer.from(key, 'utf8'))
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The Standard Webhooks secret a receiver configures for a signing key. */
export const standardWebhookSecret = (key: string): string =>
  `whsec_${Buffer.from(key, 'utf8').toString('base64')}`;
