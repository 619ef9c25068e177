import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Webhook notifications from MPGS carry the merchant's notification secret (set in Merchant
 * Administration) in the `X-Notification-Secret` header; their body is the RETRIEVE TRANSACTION
 * answer (https://developer.mastercard.com/mastercard-gateway/documentation/gateway-features/webhook-noti/).
 * MPGS also sends `X-Notification-Id` (the same on every retry of one notification) and
 * `X-Notification-Attempt` (1, 2, ...).
 */
export const NOTIFICATION_SECRET_HEADER = 'x-notification-secret';
export const NOTIFICATION_ID_HEADER = 'x-notification-id';
export const NOTIFICATION_ATTEMPT_HEADER = 'x-notification-attempt';

type Headers = Record<string, string | string[] | undefined>;

function single(headers: Headers, name: string): string | null {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  if (Array.isArray(found)) return found.length === 1 ? found[0] : null;
  return found ?? null;
}

/**
 * True when the notification's `X-Notification-Secret` equals `secret`. The comparison takes the
 * same time wherever the values differ (both sides are hashed to equal length first). With no
 * configured secret, nothing is verified: every notification is refused.
 */
export function verifyMpgsNotification(headers: Headers, secret: string | null): boolean {
  if (!secret) return false;
  const given = single(headers, NOTIFICATION_SECRET_HEADER);
  if (given === null) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(secret));
}

/** The notification's id and attempt number, for logging and de-duplication. */
export function mpgsNotificationMeta(headers: Headers): { id: string | null; attempt: number | null } {
  const attempt = Number(single(headers, NOTIFICATION_ATTEMPT_HEADER));
  return {
    id: single(headers, NOTIFICATION_ID_HEADER),
    attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
  };
}
