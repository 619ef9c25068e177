import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';

/**
 * One POST to KNET with two limits (contract §20 "Provider calls"): `connectTimeoutMs` until the
 * connection (TCP, and TLS for https) is up, and `timeoutMs` for the whole call, answer included.
 *
 * Written on `node:http(s)` rather than `fetch`: Node's built-in `fetch` offers no separate
 * connect limit without the `undici` package's `Agent`, which is not a dependency. No redirects
 * are followed; the answer is read up to 64 KiB.
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

export function postText(
  url: URL,
  body: string,
  contentType: string,
  limits: KnetHttpLimits,
): Promise<KnetHttpAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  const where = `${url.protocol}//${url.host}${url.pathname}`; // no query: it may carry data
  return new Promise<KnetHttpAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (error: KnetTransportError | null, answer?: KnetHttpAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(overall);
      clearTimeout(connecting);
      if (error) {
        request.destroy();
        reject(error);
      } else resolve(answer as KnetHttpAnswer);
    };
    const request = transport.request(url, {
      method: 'POST',
      agent: false,
      headers: {
        'Content-Type': contentType,
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      },
    });
    const overall = setTimeout(
      () =>
        finish(
          new KnetTransportError('timeout', `KNET did not answer within ${limits.timeoutMs} ms (${where})`),
        ),
      limits.timeoutMs,
    );
    const connecting = setTimeout(
      () =>
        finish(
          new KnetTransportError(
            'connect_timeout',
            `Could not connect to KNET within ${limits.connectTimeoutMs} ms (${where})`,
          ),
        ),
      Math.min(limits.connectTimeoutMs, limits.timeoutMs),
    );
    request.on('socket', (socket: Socket) => {
      // agent: false → a new socket per call, so the event is still ahead of us.
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connecting));
    });
    request.on('error', (error) =>
      finish(new KnetTransportError('network', `KNET could not be reached (${where}): ${error.message}`)),
    );
    request.on('response', (response) => {
      clearTimeout(connecting);
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          finish(
            new KnetTransportError('too_large', `KNET's answer exceeds ${MAX_ANSWER_BYTES} bytes (${where})`),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        finish(null, { status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', (error) =>
        finish(new KnetTransportError('network', `KNET's answer was cut (${where}): ${error.message}`)),
      );
    });
    request.end(body);
  });
}
