import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (the test's MariaDB): a "database node" the
 * test can kill (every connection dropped, new ones refused) and bring back on the same port, or
 * freeze (a SIGSTOPped server, a frozen VM: connections stay open, nothing is answered) and thaw.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Each client with its upstream, to stop and resume forwarding between them. */
  private readonly pairs = new Set<[Socket, Socket]>();
  private frozen = false;
  /** Connections accepted since the proxy was created. */
  accepted = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    public port: number,
  ) {}

  static async start(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, port);
    await proxy.up();
    return proxy;
  }

  /** Listens (again) on its port. */
  async up(): Promise<void> {
    const server = createServer((client) => {
      this.accepted++;
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      if (!this.frozen) forward(pair);
      client.on('close', () => {
        upstream.destroy();
        this.pairs.delete(pair);
      });
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /**
   * Like a SIGSTOPped node: nothing is forwarded either way (what is sent waits, as in a kernel's
   * buffers), connections stay open, and new ones are accepted but never greeted.
   */
  freeze(): void {
    this.frozen = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Like SIGCONT: forwarding resumes, what waited is delivered. */
  thaw(): void {
    this.frozen = false;
    for (const pair of this.pairs) forward(pair);
  }

  /** Like a node that died: open connections are cut, new ones refused. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function forward([client, upstream]: [Socket, Socket]): void {
  client.pipe(upstream);
  upstream.pipe(client);
}
