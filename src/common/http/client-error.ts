import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

/** Node's parser errors that have their own status; every other one is a 400. */
const STATUS_BY_CODE: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * A request Node cannot parse (a bad header line, a broken chunk) never reaches Express; Node's
 * own answer is an empty `400` with no JSON. This answers like every other error (contract §2):
 * `{"detail": …}` with an `X-Request-Id`, then closes the connection (its framing is lost).
 */
export function answerMalformedRequests(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = STATUS_BY_CODE[error.code ?? ''] ?? 400;
    const id = randomUUID();
    const body = JSON.stringify({
      detail: status === 400 ? 'Malformed HTTP request.' : STATUS_CODES[status],
    });
    // The raw bytes stay out of the log: they may hold credentials.
    logger.warn({ requestId: id, code: error.code, status }, 'malformed HTTP request');
    socket.end(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${id}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
