/** The result of one delivery attempt, as the attempt log and the retry policy see it. */
export interface DeliveryOutcome {
  /** 2xx / accepted: the delivery is done. */
  ok: boolean;
  /** A failure worth trying again (timeout, network error, 429, 5xx, SMTP 4xx). */
  retryable: boolean;
  statusCode: number | null;
  error: string | null;
  /** At most 1 KB of the answer. */
  responseBody: string | null;
}

export const MAX_LOGGED_BODY_BYTES = 1024;

/** HTTP statuses (contract §6): 2xx delivered; 429 and 5xx retried; everything else given up. */
export function outcomeOfStatus(statusCode: number, responseBody: string): DeliveryOutcome {
  const ok = statusCode >= 200 && statusCode < 300;
  const retryable = statusCode === 429 || statusCode >= 500;
  let error: string | null = null;
  if (!ok) {
    error =
      statusCode >= 300 && statusCode < 400
        ? `HTTP ${statusCode}: redirects are not followed`
        : `HTTP ${statusCode}`;
  }
  return { ok, retryable: !ok && retryable, statusCode, error, responseBody };
}

export const failedOutcome = (error: string, retryable: boolean): DeliveryOutcome => ({
  ok: false,
  retryable,
  statusCode: null,
  error: error.slice(0, 500),
  responseBody: null,
});
