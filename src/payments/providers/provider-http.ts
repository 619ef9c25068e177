import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';

/**
 * One HTTP exchange with a provider, with the two limits of contract §20 "Provider calls": one to
 * connect (TCP, and the TLS handshake for https) and one for the whole call, answer included. The
 * provider clients that speak plain HTTP (MPGS's REST API, KNET's tranPipe) send through it; Stripe's
 * SDK brings its own HTTP and gets the connect limit from connect-limited-agent.ts.
 *
 * Written on `node:http(s)` rather than `fetch`: Node's built-in `fetch` offers no separate connect
 * limit without the `undici` package's `Agent`, which is not a dependency. A new connection per
 * call (`agent: false`): no pooled connection that the provider closed meanwhile can make a
 * request's fate unknown. No redirects are followed. Every failure, whichever the provider, is one
 * error, {@link ProviderTransportError}, saying whether the request may have reached the provider.
 */

export interface ProviderHttpRequest {
  /** The provider's display name (`KNET`, `MPGS`): its failures name it. */
  provider: string;
  /** What the call does (`inquiry`, `RETRIEVE_ORDER`): its failures name it. */
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: URL;
  /** Sent as they are: the caller names the content type and length. */
  headers: Record<string, string | number>;
  body?: string;
  /** The connection must be up within this many ms. */
  connectTimeoutMs: number;
  /** The whole exchange, connection included, must end within this many ms. */
  answerTimeoutMs: number;
  /** The answer is read up to this many bytes. */
  maxAnswerBytes: number;
  /**
   * Beyond {@link maxAnswerBytes}: `fail` (a {@link ProviderTransportError} `too_large`) or `cut`
   * (the chunks read within it are kept, the rest dropped).
   */
  beyondMax: 'fail' | 'cut';
}

export interface ProviderHttpAnswer {
  status: number;
  text: string;
}

/**
 * Why a call brought no (whole) answer:
 * - `connect_timeout`: no connection within the connect limit, or the whole-call limit passed
 *   before the connection was up (nothing was sent);
 * - `timeout`: connected, but the whole-call limit passed before the whole answer came;
 * - `network`: the connection failed (before it was up, or after: see `sent`), or the answer
 *   broke off while it was being read;
 * - `too_large`: the answer exceeds `maxAnswerBytes` (with `beyondMax: 'fail'`).
 */
export type ProviderTransportKind = 'connect_timeout' | 'timeout' | 'network' | 'too_large';

/**
 * The one error of {@link sendProviderRequest}, for every provider it serves: the call brought no
 * (whole) answer, so the provider may or may not have acted on it — unless `sent` is false. Its
 * message names the provider, the operation and the host and path called: never the query string
 * (it may carry data), the headers (credentials) or the body (card data).
 */
export class ProviderTransportError extends Error {
  constructor(
    readonly provider: string,
    readonly operation: string,
    readonly kind: ProviderTransportKind,
    /** Whether the request may have reached the provider: false only when no connection was ever up. */
    readonly sent: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderTransportError';
  }
}

/** What happened to an exchange that brought no answer, as {@link sendProviderRequest} sees it. */
type ProviderHttpFailure =
  | { kind: 'connect_limit' }
  | { kind: 'answer_limit'; connected: boolean }
  | { kind: 'request_error'; connected: boolean; error: NodeJS.ErrnoException }
  | { kind: 'response_error'; error: Error }
  | { kind: 'too_large' };

/** The one place an exchange's failure becomes the error its caller gets. */
function transportError(request: ProviderHttpRequest, failure: ProviderHttpFailure): ProviderTransportError {
  const { protocol, host, pathname } = request.url; // no query (it may carry data), no credentials
  const error = (kind: ProviderTransportKind, sent: boolean, detail: string) =>
    new ProviderTransportError(
      request.provider,
      request.operation,
      kind,
      sent,
      `${request.provider} ${request.operation} (${protocol}//${host}${pathname}): ${detail}`,
    );
  switch (failure.kind) {
    case 'connect_limit':
      return error('connect_timeout', false, `no connection within ${request.connectTimeoutMs} ms`);
    case 'answer_limit':
      return failure.connected
        ? error('timeout', true, `no answer within ${request.answerTimeoutMs} ms`)
        : error('connect_timeout', false, `no connection within ${request.answerTimeoutMs} ms`);
    case 'request_error': {
      const { code, message } = failure.error;
      const said = code && !message.includes(code) ? `${code}: ${message}` : message;
      return failure.connected
        ? error('network', true, `the connection broke: ${said}`)
        : error('network', false, `could not connect: ${said}`);
    }
    case 'response_error':
      return error('network', true, `the answer broke off: ${failure.error.message}`);
    case 'too_large':
      return error('too_large', true, `the answer exceeds ${request.maxAnswerBytes} bytes`);
  }
}

/** Sends one request; rejects with {@link ProviderTransportError} only. */
export function sendProviderRequest(request: ProviderHttpRequest): Promise<ProviderHttpAnswer> {
  const secure = request.url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise<ProviderHttpAnswer>((resolve, reject) => {
    let connected = false;
    let settled = false;
    const finish = (failure: ProviderHttpFailure | null, answer?: ProviderHttpAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(answerTimer);
      clearTimeout(connectTimer);
      if (failure) {
        outgoing.destroy();
        reject(transportError(request, failure));
      } else resolve(answer as ProviderHttpAnswer);
    };
    const outgoing = transport.request(request.url, {
      method: request.method,
      headers: request.headers,
      agent: false,
    });
    // The whole-call limit first: at equal limits, it is the one that fires.
    const answerTimer = setTimeout(
      () => finish({ kind: 'answer_limit', connected }),
      request.answerTimeoutMs,
    );
    const connectTimer = setTimeout(
      () => {
        if (!connected) finish({ kind: 'connect_limit' });
      },
      Math.min(request.connectTimeoutMs, request.answerTimeoutMs),
    );
    outgoing.on('socket', (socket: Socket) => {
      // agent: false → a new socket per call, so the event is still ahead of us.
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        connected = true;
        clearTimeout(connectTimer);
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      finish({ kind: 'request_error', connected, error }),
    );
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= request.maxAnswerBytes) chunks.push(chunk);
        else if (request.beyondMax === 'fail') finish({ kind: 'too_large' });
      });
      response.on('end', () =>
        finish(null, { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', (error: Error) => finish({ kind: 'response_error', error }));
    });
    outgoing.end(request.body);
  });
}
