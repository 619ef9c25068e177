import { DomainError } from './domain-errors';

/**
 * A payment provider's own error, as our answer (contract §20.1: "a provider's own HTTP status never
 * becomes ours"): 503 with `Retry-After` when the provider did not answer or asked us to come back
 * (its 429 or 5xx, a timeout, a refused connection), 502 when it refused the request (its 400, 401,
 * 403, 409…). The body carries the provider's error in a field of its own:
 * `{"detail": "...", "provider_error": {"provider", "status", "code", "message"}}`.
 */
export interface ProviderErrorBody {
  provider: string;
  /** The provider's HTTP status; null when it did not answer. */
  status: number | null;
  /** The provider's error code, when it gave one. */
  code: string | null;
  /** The provider's message (never a secret or card data: the drivers' promise). */
  message: string;
}

/** Seconds a client waits before asking again when the provider did not answer. */
export const PROVIDER_RETRY_AFTER_SECONDS = 5;

/** The longest provider message passed on. */
const MESSAGE_MAX = 500;

export class ProviderCallError extends DomainError {
  readonly status: 502 | 503;

  constructor(
    readonly providerError: ProviderErrorBody,
    /** The provider may answer later: 503, and on the operations API `"result": "pending"`. */
    readonly retryable: boolean,
  ) {
    super(
      retryable
        ? `The payment provider (${providerError.provider}) did not answer or is busy; retry later.`
        : `The payment provider (${providerError.provider}) refused the request.`,
    );
    this.status = retryable ? 503 : 502;
    if (retryable) this.headers['Retry-After'] = String(PROVIDER_RETRY_AFTER_SECONDS);
  }

  override body(): unknown {
    return { detail: this.message, provider_error: this.providerError };
  }
}

/**
 * The seam's `ProviderCallFailed` (payments/adapters/gateway-adapter.ts), recognised by its shape:
 * `common/` sits below `payments/` and never imports it. A ProviderCallError passes as it is.
 */
export function providerCallError(error: unknown): ProviderCallError | null {
  if (error instanceof ProviderCallError) return error;
  if (!(error instanceof Error) || error.name !== 'ProviderCallFailed') return null;
  const { provider, details } = error as Error & { provider?: unknown; details?: unknown };
  if (typeof provider !== 'string' || typeof details !== 'object' || details === null) return null;
  const { status, code, retryable } = details as { status?: unknown; code?: unknown; retryable?: unknown };
  if (typeof retryable !== 'boolean') return null;
  return new ProviderCallError(
    {
      provider,
      status: typeof status === 'number' && Number.isInteger(status) ? status : null,
      code: typeof code === 'string' && code !== '' ? code : null,
      message: error.message.slice(0, MESSAGE_MAX),
    },
    retryable,
  );
}
