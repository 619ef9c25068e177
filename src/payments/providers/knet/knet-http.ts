import { ProviderHttpError, sendProviderRequest, type ProviderHttpFailure } from '../provider-http';

/**
 * One POST to KNET with two limits (contract §20 "Provider calls"): `connectTimeoutMs` until the
 * connection (TCP, and TLS for https) is up, and `timeoutMs` for the whole call, answer included,
 * sent through the provider clients' one HTTP exchange (../provider-http.ts). No redirects are
 * followed; the answer is read up to 64 KiB.
 */

export interface KnetHttpLimits {
  /** Until the connection is up; default 5 s. */
  connectTimeoutMs: number;
  /** For the whole call. */
  timeoutMs: number;
}

export interface KnetHttpAnswer {
  status: number;
  body: string;
}

/** Why a call failed without an answer: KNET may or may not have acted on it. */
export type KnetTransportFailure = 'connect_timeout' | 'timeout' | 'network' | 'too_large';

export class KnetTransportError extends Error {
  constructor(
    readonly failure: KnetTransportFailure,
    message: string,
  ) {
    super(message);
    this.name = 'KnetTransportError';
  }
}

const MAX_ANSWER_BYTES = 64 * 1024;

export async function postText(
  url: URL,
  body: string,
  contentType: string,
  limits: KnetHttpLimits,
): Promise<KnetHttpAnswer> {
  const where = `${url.protocol}//${url.host}${url.pathname}`; // no query: it may carry data
  try {
    const answer = await sendProviderRequest({
      method: 'POST',
      url,
      headers: {
        'Content-Type': contentType,
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      },
      body,
      connectTimeoutMs: limits.connectTimeoutMs,
      answerTimeoutMs: limits.timeoutMs,
      maxAnswerBytes: MAX_ANSWER_BYTES,
      beyondMax: 'fail',
    });
    return { status: answer.status, body: answer.text };
  } catch (error) {
    if (!(error instanceof ProviderHttpError)) throw error;
    throw knetTransportError(error.failure, where, limits);
  }
}

/** The exchange's failure in KNET's terms (the messages name the host and path, never the query). */
function knetTransportError(
  failure: ProviderHttpFailure,
  where: string,
  limits: KnetHttpLimits,
): KnetTransportError {
  switch (failure.kind) {
    case 'connect_limit':
      return new KnetTransportError(
        'connect_timeout',
        `Could not connect to KNET within ${limits.connectTimeoutMs} ms (${where})`,
      );
    case 'answer_limit':
      return new KnetTransportError(
        'timeout',
        `KNET did not answer within ${limits.timeoutMs} ms (${where})`,
      );
    case 'request_error':
      return new KnetTransportError(
        'network',
        `KNET could not be reached (${where}): ${failure.error.message}`,
      );
    case 'response_error':
      return new KnetTransportError('network', `KNET's answer was cut (${where}): ${failure.error.message}`);
    case 'too_large':
      return new KnetTransportError(
        'too_large',
        `KNET's answer exceeds ${MAX_ANSWER_BYTES} bytes (${where})`,
      );
  }
}
