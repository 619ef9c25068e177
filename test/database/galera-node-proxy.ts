import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** What the proxy answers for: a Synced node, one that is not ready, or one that refuses COMMITs only. */
export type NodeMode = 'ready' | 'not-ready' | 'refuse-commit';

const COM_QUERY = 0x03;

/**
 * A TCP proxy on 127.0.0.1 in front of the test's MariaDB that speaks just enough of the MySQL
 * protocol to pass for a Galera node, so that what a real node does while it (re)joins can be
 * provoked without a cluster (contract §17):
 *
 * - it says it is one: `SHOW VARIABLES LIKE 'wsrep_on'` answers ON, `SHOW STATUS LIKE
 *   'wsrep_ready'` ON or OFF with the mode, `wsrep_reject_queries` NONE;
 * - `not-ready`: like a node outside the primary component or still joining, every statement but
 *   SET, SHOW and a SELECT without FROM is refused with errno 1047 "WSREP has not yet prepared
 *   node for application use" (COMMIT and ROLLBACK too), and `wsrep_ready` reads OFF. The refused
 *   statement never reaches the server (as on a real node: it did not run);
 * - `refuse-commit`: the node reads as ready, but the COMMIT of a transaction that touched
 *   {@link GaleraNodeProxy.commitsTouching} is refused with 1047 (a node that dropped out of the
 *   primary component just as the transaction ended: not committed).
 *
 * Commands are the client's packets with sequence id 0 (the handshake's come with 1 and up); the
 * client sends one command at a time and waits for its answer (mysql2 does), so an error packet
 * can be written back in place of the server's.
 */
export class GaleraNodeProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  mode: NodeMode = 'ready';
  /** In `refuse-commit` mode: the statements whose transaction's COMMIT is refused. */
  commitsTouching = /./;
  /** Connections accepted since the proxy was created. */
  accepted = 0;
  /** Statements refused with 1047 so far, by their first word (`COMMIT`, `SELECT`…). */
  readonly refused: string[] = [];
  /** Statements forwarded to the server (rewritten ones included). */
  forwarded = 0;

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<GaleraNodeProxy> {
    const proxy = new GaleraNodeProxy(target);
    await proxy.listen();
    return proxy;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(): Promise<void> {
    const server = createServer((client) => this.serve(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  private serve(client: Socket): void {
    this.accepted++;
    const upstream = createConnection(this.target);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.pipe(client);
    let pending = Buffer.alloc(0);
    const session = { touched: false };
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3);
        if (pending.length < 4 + length) break;
        const packet = pending.subarray(0, 4 + length);
        pending = pending.subarray(4 + length);
        this.onPacket(packet, client, upstream, session);
      }
    });
  }

  private onPacket(packet: Buffer, client: Socket, upstream: Socket, session: { touched: boolean }): void {
    const sequence = packet[3];
    if (sequence !== 0 || packet[4] !== COM_QUERY) {
      upstream.write(packet); // the handshake, COM_QUIT, COM_PING…
      return;
    }
    const sql = packet.subarray(5).toString('utf8');
    if (this.commitsTouching.test(sql)) session.touched = true;
    const refused = this.refuses(sql, session.touched);
    if (/^\s*(COMMIT|ROLLBACK)\b/i.test(sql)) session.touched = false;
    if (refused) {
      this.refused.push(/^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '');
      client.write(errorPacket(1047, '08S01', 'WSREP has not yet prepared node for application use'));
      return;
    }
    this.forwarded++;
    const rewritten = this.rewrite(sql);
    upstream.write(rewritten === sql ? packet : queryPacket(rewritten));
  }

  private refuses(sql: string, touched: boolean): boolean {
    if (this.mode === 'refuse-commit') return touched && /^\s*COMMIT\b/i.test(sql);
    if (this.mode !== 'not-ready') return false;
    if (/^\s*(SET|SHOW)\b/i.test(sql)) return false;
    return !(/^\s*SELECT\b/i.test(sql) && !/\bFROM\b/i.test(sql));
  }

  /** The answers of a Galera node to the pool's questions about the node. */
  private rewrite(sql: string): string {
    const row = (name: string, value: string) => `SELECT '${name}' AS Variable_name, '${value}' AS Value`;
    if (/^\s*SHOW\s+VARIABLES\s+LIKE\s+'wsrep_on'/i.test(sql)) return row('wsrep_on', 'ON');
    if (/^\s*SHOW\s+STATUS\s+LIKE\s+'wsrep_ready'/i.test(sql)) {
      return row('wsrep_ready', this.mode === 'not-ready' ? 'OFF' : 'ON');
    }
    return sql;
  }
}

function header(length: number, sequence: number): Buffer {
  const head = Buffer.alloc(4);
  head.writeUIntLE(length, 0, 3);
  head[3] = sequence;
  return head;
}

function queryPacket(sql: string): Buffer {
  const payload = Buffer.concat([Buffer.from([COM_QUERY]), Buffer.from(sql, 'utf8')]);
  return Buffer.concat([header(payload.length, 0), payload]);
}

/** An ERR packet (protocol 4.1: 0xff, errno, '#', SQL state, message) answering a command. */
function errorPacket(errno: number, sqlState: string, message: string): Buffer {
  const code = Buffer.alloc(2);
  code.writeUInt16LE(errno);
  const payload = Buffer.concat([Buffer.from([0xff]), code, Buffer.from(`#${sqlState}${message}`, 'utf8')]);
  return Buffer.concat([header(payload.length, 1), payload]);
}
