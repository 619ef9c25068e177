import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';
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
 * Sends a request with Node's http/https and two limits, as contract §20 "Provider calls" asks:
 * one to connect (TCP, plus the TLS handshake for https) and one for the whole answer. Node's
 * built-in `fetch` offers no connect limit without the `undici` package's Agent, so this uses
 * `node:http`. A new connection per call: no pooled connection that the gateway closed meanwhile
 * can make a request's fate unknown. No redirects are followed.
 */
export const sendMpgsHttp: MpgsHttpSend = (request, operation) =>
  new Promise<MpgsHttpAnswer>((resolve, reject) => {
    const target = new URL(request.url);
    const secure = target.protocol === 'https:';
    const client = secure ? https : http;
    let connected = false;
    let settled = false;
    const finish = (error: MpgsTransportError | null, answer?: MpgsHttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(answerTimer);
      if (error) {
        outgoing.destroy();
        reject(error);
      } else resolve(answer as MpgsHttpAnswer);
    };
    const outgoing = client.request(
      target,
      {
        method: request.method,
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
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
        });
        response.on('end', () =>
          finish(null, { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', (error: Error) =>
          finish(
            new MpgsTransportError(operation, 'network', true, `the answer broke off (${error.message})`),
          ),
        );
      },
    );
    const connectTimer = setTimeout(() => {
      if (!connected) {
        finish(
          new MpgsTransportError(
            operation,
            'connect',
            false,
            `no connection within ${request.connectTimeoutMs} ms`,
          ),
        );
      }
    }, request.connectTimeoutMs);
    const answerTimer = setTimeout(
      () =>
        finish(
          connected
            ? new MpgsTransportError(
                operation,
                'timeout',
                true,
                `no answer within ${request.answerTimeoutMs} ms`,
              )
            : new MpgsTransportError(
                operation,
                'connect',
                false,
                `no connection within ${request.answerTimeoutMs} ms`,
              ),
        ),
      request.answerTimeoutMs,
    );
    outgoing.on('socket', (socket: Socket) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        connected = true;
        clearTimeout(connectTimer);
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ? `${error.code}: ` : '';
      finish(new MpgsTransportError(operation, 'network', connected, `${code}${error.message}`));
    });
    outgoing.end(request.body);
  });
