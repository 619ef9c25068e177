import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

/** What the receiver answers a request with (status and body); may also hang. */
export type Responder = (
  request: ReceivedRequest,
  index: number,
) => { status: number; body?: string } | 'hang';

/** A real HTTP server on 127.0.0.1 that records what it receives (webhooks, SMS provider). */
export class HttpReceiver {
  readonly received: ReceivedRequest[] = [];
  private server: Server | null = null;
  private waiters: { count: number; resolve: () => void }[] = [];
  private hanging = new Set<() => void>();

  private constructor(
    public port: number,
    public responder: Responder,
  ) {}

  /** Starts on a free port (or the given one, to come back after {@link stop}). */
  static async start(responder: Responder = () => ({ status: 200 }), port = 0): Promise<HttpReceiver> {
    const receiver = new HttpReceiver(port, responder);
    await receiver.listen();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          /* not JSON */
        }
        const request = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
          json,
          at: Date.now(),
        };
        const index = this.received.length;
        this.received.push(request);
        const answer = this.responder(request, index);
        if (answer === 'hang') {
          const end = () => res.destroy();
          this.hanging.add(end);
        } else {
          res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
          res.end(answer.body ?? 'ok');
        }
        this.waiters = this.waiters.filter((w) => {
          if (this.received.length >= w.count) w.resolve();
          return this.received.length < w.count;
        });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Resolves once `count` requests have arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs = 15_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Expected ${count} request(s), got ${this.received.length}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async stop(): Promise<void> {
    for (const end of this.hanging) end();
    this.hanging.clear();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
