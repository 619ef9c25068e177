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
 * request's fate unknown. No redirects are followed.
 */

export interface ProviderHttpRequest {
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
   * Beyond {@link maxAnswerBytes}: `fail` (a {@link ProviderHttpError} `too_large`) or `cut` (the
   * chunks read within it are kept, the rest dropped).
   */
  beyondMax: 'fail' | 'cut';
}

export interface ProviderHttpAnswer {
  status: number;
  text: string;
}

/**
 * Why an exchange brought no answer, as facts (each client words them in its provider's terms):
 * - `connect_limit`: no connection within the connect limit (nothing was sent);
 * - `answer_limit`: the whole-call limit passed, `connected` or not yet;
 * - `request_error`: the connection failed (before or after it was up: `connected`);
 * - `response_error`: the answer broke off while it was being read;
 * - `too_large`: the answer exceeds `maxAnswerBytes` (with `beyondMax: 'fail'`).
 */
export type ProviderHttpFailure =
  | { kind: 'connect_limit' }
  | { kind: 'answer_limit'; connected: boolean }
  | { kind: 'request_error'; connected: boolean; error: NodeJS.ErrnoException }
  | { kind: 'response_error'; error: Error }
  | { kind: 'too_large' };

/** The one error of {@link sendProviderRequest}: the exchange brought no (whole) answer. */
export class ProviderHttpError extends Error {
  constructor(readonly failure: ProviderHttpFailure) {
    super(`Provider exchange failed: ${failure.kind}`);
    this.name = 'ProviderHttpError';
  }
}

/** Sends one request; rejects with {@link ProviderHttpError} only. */
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
        reject(new ProviderHttpError(failure));
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
