import { Agent as HttpAgent, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** What a connection that did not come up in time fails with (the request never left). */
export class ConnectTimeoutError extends Error {
  readonly code = 'ECONNECTTIMEOUT';
  constructor(readonly connectTimeoutMs: number) {
    super(`No connection within ${connectTimeoutMs} ms`);
    this.name = 'ConnectTimeoutError';
  }
}

/**
 * An HTTP(S) agent whose connections must be up — TCP, and the TLS handshake for https — within
 * `connectTimeoutMs`, for clients that take an agent but have one time limit of their own for the
 * whole call (the Stripe SDK's `timeout`). A connection not up by then is destroyed with
 * {@link ConnectTimeoutError}: the client sees a connection error, and nothing was sent.
 * No keep-alive: a new connection per request, as the other provider clients make.
 */
export function connectLimitedAgent(protocol: 'http' | 'https', connectTimeoutMs: number): HttpAgent {
  const Base = protocol === 'https' ? HttpsAgent : HttpAgent;
  const upEvent = protocol === 'https' ? 'secureConnect' : 'connect';
  class ConnectLimitedAgent extends Base {
    override createConnection(
      options: ClientRequestArgs,
      callback?: (err: Error | null, stream: Duplex) => void,
    ): Duplex | null | undefined {
      const socket = super.createConnection(options, callback) as Socket | null | undefined;
      if (!socket) return socket;
      const timer = setTimeout(
        () => socket.destroy(new ConnectTimeoutError(connectTimeoutMs)),
        connectTimeoutMs,
      );
      timer.unref();
      socket.once(upEvent, () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
      return socket;
    }
  }
  return new ConnectLimitedAgent({ keepAlive: false });
}
