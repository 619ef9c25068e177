import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import { isBlockedAddress, isBlockedLiteralHost } from '../../common/net/private-address';
import { DeliveryOutcome, failedOutcome, MAX_LOGGED_BODY_BYTES, outcomeOfStatus } from '../delivery-outcome';

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  /** Refuse loopback, private, link-local and metadata addresses (checked after DNS). */
  blockPrivate: boolean;
  /** Aborts the request (the service is shutting down): a retryable failure. */
  signal?: AbortSignal;
  /** Connection reuse: without one, every request opens (and closes) its own connection. */
  agents?: KeepAliveAgents;
}

/**
 * Keep-alive connection pools for webhook targets, one per protocol: a merchant's endpoint
 * receives many webhooks, and a new TCP (and TLS) connection per webhook cost more CPU than the
 * request itself. A pooled connection the receiver closed meanwhile fails like any network error
 * (retried). Destroy them on shutdown.
 */
export class KeepAliveAgents {
  readonly http = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo' });
  readonly https = new https.Agent({
    keepAlive: true,
    maxSockets: 64,
    maxFreeSockets: 16,
    scheduling: 'lifo',
  });

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

const INTERRUPTED = 'Interrupted: the service is shutting down';

/** A target that resolved to an address webhooks must not reach: never retried. */
export class BlockedTargetError extends Error {
  constructor(host: string, address: string) {
    super(`Refused: ${host} resolves to ${address}, a loopback, private, link-local or metadata address`);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the socket: resolves the name, refuses it when any address is blocked, and hands
 * the checked addresses to the socket, so the connection goes to the address that was checked.
 */
function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { all: true, family: Number(options.family) || 0 }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = addresses.find((a) => isBlockedAddress(a.address));
    if (blocked) return callback(new BlockedTargetError(hostname, blocked.address), []);
    if (addresses.length === 0) return callback(new Error(`${hostname} has no address`), []);
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
}

/**
 * POSTs a JSON body with Node's http/https: no redirects followed, one overall timeout, ≤ 1 KB of
 * the answer kept. Never throws: every failure becomes an outcome for the attempt log.
 */
export function postJson(url: string, body: string, options: PostOptions): Promise<DeliveryOutcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(failedOutcome(`Invalid URL: ${url}`, false));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve(failedOutcome(`Unsupported URL scheme ${target.protocol}`, false));
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (options.blockPrivate && (isBlockedLiteralHost(url) || (isIP(host) && isBlockedAddress(host)))) {
    return Promise.resolve(failedOutcome(new BlockedTargetError(host, host).message, false));
  }
  const client = target.protocol === 'https:' ? https : http;
  if (options.signal?.aborted) return Promise.resolve(failedOutcome(INTERRUPTED, true));
  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', interrupt);
      resolve(outcome);
    };
    const interrupt = () => request.destroy(new Error(INTERRUPTED));
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
          'User-Agent': 'Checkout-Webhooks/1.0',
          ...options.headers,
        },
        agent: options.agents ? options.agents[target.protocol === 'https:' ? 'https' : 'http'] : false,
        ...(options.blockPrivate ? { lookup: guardedLookup } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < MAX_LOGGED_BODY_BYTES) {
            const part = chunk.subarray(0, MAX_LOGGED_BODY_BYTES - kept);
            chunks.push(part);
            kept += part.length;
          }
        });
        const done = () =>
          finish(outcomeOfStatus(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`Timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', interrupt, { once: true });
    request.on('error', (error) => {
      finish(failedOutcome(error.message || String(error), !(error instanceof BlockedTargetError)));
    });
    request.end(body);
  });
}
