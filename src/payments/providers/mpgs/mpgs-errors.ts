/**
 * Failures of MPGS calls that MPGS answered. Messages name the operation and what MPGS said; they
 * never contain the API password or the Authorization header. A call MPGS did not answer fails with
 * the provider clients' one transport error, `ProviderTransportError` (../provider-http.ts).
 */

/**
 * `error.cause` values MPGS documents for `result: "ERROR"` answers
 * (https://developer.mastercard.com/mastercard-gateway/documentation/testing/trans-error/):
 * INVALID_REQUEST (fix the request), REQUEST_REJECTED (refused, e.g. by security rules),
 * SERVER_BUSY (not processed now: try again later), SERVER_FAILED (the gateway failed).
 */
export type MpgsErrorCause =
  'INVALID_REQUEST' | 'REQUEST_REJECTED' | 'SERVER_BUSY' | 'SERVER_FAILED' | (string & Record<never, never>);

/** MPGS answered with `{"result": "ERROR", "error": {...}}` (or a non-2xx status). */
export class MpgsApiError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly errorCause: MpgsErrorCause,
    readonly explanation: string | null,
    readonly field: string | null,
    readonly validationType: string | null,
  ) {
    super(
      `MPGS ${operation} failed: HTTP ${status} ${errorCause}` +
        (explanation ? `: ${explanation}` : '') +
        (field ? ` (field ${field}${validationType ? `, ${validationType}` : ''})` : ''),
    );
    this.name = 'MpgsApiError';
  }

  /** The gateway says it did not process the request and it may be sent again. */
  get retryable(): boolean {
    return this.errorCause === 'SERVER_BUSY';
  }

  /** The credentials (merchant id / API password) were refused. */
  get authenticationFailed(): boolean {
    return this.status === 401;
  }
}
