import { ProviderHttpError, sendProviderRequest, type ProviderHttpFailure } from '../provider-http';
import { MpgsTransportError } from './mpgs-errors';

/** One HTTP exchange with the gateway. */
export interface MpgsHttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The connection (TCP, and TLS for https) must be up within this many ms. */
  connectTimeoutMs: number;
  /** The whole exchange, connection included, must end within this many ms. */
  answerTimeoutMs: number;
}

export interface MpgsHttpAnswer {
  status: number;
  text: string;
}

/** Sends one request; the client is given a function of this shape so tests can replace it. */
export type MpgsHttpSend = (request: MpgsHttpRequest, operation: string) => Promise<MpgsHttpAnswer>;

/** Answers larger than this are cut off: MPGS answers are a few kilobytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Sends a request through the provider clients' one HTTP exchange (../provider-http.ts) with the
 * two limits of contract §20 "Provider calls": one to connect (TCP, plus the TLS handshake for
 * https) and one for the whole answer; a new connection per call, no redirects followed. A failure
 * is an {@link MpgsTransportError} saying whether the request may have reached the gateway.
 */
export const sendMpgsHttp: MpgsHttpSend = async (request, operation) => {
  try {
    const answer = await sendProviderRequest({
      method: request.method,
      url: new URL(request.url),
      headers: {
        Accept: 'application/json',
        ...(request.body !== undefined
          ? {
              'Content-Type': 'application/json; charset=utf-8',
              'Content-Length': String(Buffer.byteLength(request.body)),
            }
          : {}),
        ...request.headers,
      },
      body: request.body,
      connectTimeoutMs: request.connectTimeoutMs,
      answerTimeoutMs: request.answerTimeoutMs,
      maxAnswerBytes: MAX_ANSWER_BYTES,
      beyondMax: 'cut',
    });
    return { status: answer.status, text: answer.text };
  } catch (error) {
    if (!(error instanceof ProviderHttpError)) throw error;
    throw mpgsTransportError(error.failure, request, operation);
  }
};

/** The exchange's failure in MPGS's terms: `sent` says whether the request may have arrived. */
function mpgsTransportError(
  failure: ProviderHttpFailure,
  request: MpgsHttpRequest,
  operation: string,
): MpgsTransportError {
  switch (failure.kind) {
    case 'connect_limit':
      return new MpgsTransportError(
        operation,
        'connect',
        false,
        `no connection within ${request.connectTimeoutMs} ms`,
      );
    case 'answer_limit':
      return failure.connected
        ? new MpgsTransportError(operation, 'timeout', true, `no answer within ${request.answerTimeoutMs} ms`)
        : new MpgsTransportError(
            operation,
            'connect',
            false,
            `no connection within ${request.answerTimeoutMs} ms`,
          );
    case 'request_error': {
      const code = failure.error.code ? `${failure.error.code}: ` : '';
      return new MpgsTransportError(
        operation,
        'network',
        failure.connected,
        `${code}${failure.error.message}`,
      );
    }
    case 'response_error':
      return new MpgsTransportError(
        operation,
        'network',
        true,
        `the answer broke off (${failure.error.message})`,
      );
    case 'too_large':
      // Never: MPGS answers are cut at MAX_ANSWER_BYTES, not refused.
      return new MpgsTransportError(operation, 'network', true, 'the answer is too large');
  }
}
