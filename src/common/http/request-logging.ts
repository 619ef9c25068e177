import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    /** The request id (`X-Request-Id`), for log lines about this request. */
    id: string;
    /** `performance.now()` when the service took the request up: limits measured from arrival. */
    receivedAt: number;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * Query parameters whose values never reach the log: credentials, and card-holder data (the admin
 * search's `customer_email`, a saved card's `customer_id`, any e-mail or phone filter). Matched on
 * the decoded name, so `customer%5Femail` or `email[]` are caught too.
 */
const SECRET_NAME = /card|key|password|secret|token|email|phone|mobile|customer/i;
/** A value that looks like an e-mail address or a card number, whatever its parameter's name. */
const SECRET_VALUE = /@|\d(?:[ -]?\d){12,18}/;

/**
 * Told of every answered request (not of one the client abandoned), from the access log's own
 * 'finish' listener, with the time since the request arrived: one listener per request for both
 * (docs/performance.md). The HTTP metrics use it (metrics/http-metrics.ts).
 */
export type FinishedObserver = (req: IncomingMessage, res: ServerResponse, elapsedMs: number) => void;

/**
 * The access log: one JSON line per request, once it is answered (or the client went away), with
 * the request id, which it echoes or makes as `X-Request-Id` (contract §1). Written by hand rather than
 * with pino-http (docs/performance.md): that one built a child logger and wrapped the response for every
 * request, ≈ 4 % of a create's CPU. Never the credentials: no Authorization, no secret query values.
 */
export function requestLogging(logger: Logger, onFinished?: FinishedObserver) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const started = performance.now();
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
    req.id = id;
    req.receivedAt = started;
    res.setHeader('X-Request-Id', id);
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      const status = res.statusCode;
      const elapsedMs = performance.now() - started;
      if (onFinished && res.writableFinished) onFinished(req, res, elapsedMs);
      const line = {
        req: {
          id,
          method: req.method,
          url: redactedUrl(req.url ?? ''),
          headers: { 'user-agent': req.headers['user-agent'] },
        },
        res: { statusCode: status },
        responseTime: Math.round(elapsedMs),
      };
      if (!res.writableFinished) logger.warn(line, 'request aborted');
      else if (status >= 500) logger.error(line, 'request errored');
      else if (status >= 400) logger.warn(line, 'request completed');
      else logger.info(line, 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/** The URL with the values of secret query parameters as `[redacted]`. */
export function redactedUrl(url: string): string {
  const at = url.indexOf('?');
  if (at === -1) return url;
  const pairs = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = pair.slice(0, eq);
      const secret = SECRET_NAME.test(decoded(name)) || SECRET_VALUE.test(decoded(pair.slice(eq + 1)));
      return secret ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, at + 1)}${pairs.join('&')}`;
}

function decoded(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced; // a malformed escape: judged as sent
  }
}
