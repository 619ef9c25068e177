import { sendProviderRequest } from '../provider-http';

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
 * is that exchange's one error, `ProviderTransportError`, saying whether the request may have
 * reached the gateway (`sent`).
 */
export const sendMpgsHttp: MpgsHttpSend = async (request, operation) => {
  const answer = await sendProviderRequest({
    provider: 'MPGS',
    operation,
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
};
