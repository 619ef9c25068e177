import {
  createConnection,
  createPool,
  type Connection,
  type ConnectionOptions,
  type Pool,
  type PoolConnection,
  type PoolOptions,
} from 'mysql2';
import type { QueryRunner } from 'typeorm';
import {
  DatabaseRefusedError,
  DatabaseUnavailableError,
  isNodeNotReady,
  isRefusal,
  NETWORK_ERROR_CODES,
  StatementTimeoutError,
} from './db-errors';
import { endpointName, type MysqlEndpoint } from '../config/mysql-url';
import { acquireTimeLeft, bindDeadline, statementTimeLeft, unbindDeadline } from './time-limit';
import { assertOutsideUnit } from './unit-context';

export interface FailoverSettings {
  /** The servers of `DATABASE_URL`, in order of preference. */
  endpoints: MysqlEndpoint[];
  /** How long `getConnection` may take before it fails with {@link DatabaseUnavailableError}. */
  acquireTimeoutMs: number;
  /**
   * The longest a statement may go unanswered (`DB_QUERY_TIMEOUT_MS`); less when the unit of work
   * it belongs to has less left ({@link statementTimeLeft}). Then its connection is cut.
   */
  queryTimeoutMs: number;
  /** `wsrep_sync_wait` for sessions on Galera nodes (0: off). */
  wsrepSyncWait: number;
  /** How often the monitor checks the node in use and probes the ones that were down. */
  monitorIntervalMs?: number;
  log?: { warn(message: string): void; log(message: string): void };
}

/** What the readiness probe and operators see. */
export interface PoolStatus {
  /** The node new connections come from (`host:port`), or null when none answers. */
  active: string | null;
  nodes: { endpoint: string; up: boolean; lastError: string | null }[];
  /** Connections handed out right now (all nodes). */
  inUse: number;
  /** Requests waiting for a connection right now. */
  waiting: number;
  /** When a request last gave up waiting for a connection (ms since the epoch), or null. */
  lastAcquireTimeoutAt: number | null;
  /** Statements cut for want of an answer in time, since start. */
  statementTimeouts: number;
  /** Times a node was set aside (failed, or hung), since start. */
  nodesSetAside: number;
}

type ConnectionCallback = (error: Error | null, connection?: PoolConnection) => void;

/** A request waiting for a connection, failed once its deadline has passed. */
interface Waiter {
  deadline: number;
  expire: () => void;
  /** Fails it at once (the pool is closing). */
  abort: (error: Error) => void;
}

/** One server of the list, with its own mysql2 pool (created when first needed). */
interface Node {
  endpoint: MysqlEndpoint;
  name: string;
  up: boolean;
  lastError: string | null;
  pool: Pool | null;
  /** A connection of its own for the monitor's checks (outside the pool). */
  monitor: Connection | null;
  /** Whether the server runs Galera (`wsrep_on`), read on first contact. */
  galera: boolean | null;
  /** Its pool's connections (time-limited, see `limitStatements`), so a hung node's can be cut. */
  connections: Set<PoolConnection>;
  /** Why it was last set aside, when the server refused the credentials or database (permanent). */
  refusal: unknown;
}

/** What the pool knows of a connection it handed out (see `limitStatements`). */
interface Tracked {
  /** A transaction is open on it (START TRANSACTION answered, no COMMIT/ROLLBACK yet). */
  inTransaction: boolean;
  /**
   * The connection that runs its statements instead: its node refused one outside a transaction
   * as not ready (1047), and it was run there. Released with it.
   */
  standIn: PoolConnection | null;
  /** It stands in for another connection (so it is not replaced in turn). */
  isStandIn: boolean;
}

/** Connections of a mysql2 pool that are handed out (its own queues; mysql2 has no public count). */
function checkedOut(pool: Pool): number {
  const queues = pool as unknown as {
    _allConnections?: { length: number };
    _freeConnections?: { length: number };
  };
  return Math.max((queues._allConnections?.length ?? 0) - (queues._freeConnections?.length ?? 0), 0);
}

/** 1047: Galera node not ready for queries (joining, or outside the primary component); 1053: shutting down. */
const NODE_DOWN_ERRNOS = new Set([1047, 1053]);
/** While requests wait and no node is in use, the nodes set aside are probed this often (not every second). */
const EAGER_PROBE_MS = 250;
const RETRY_DELAY_MS = 100;
/** How often waiting requests are checked against the acquire timeout. */
const WAITER_SWEEP_MS = 50;
/** The monitor's probe answers within this (or sooner: see `probeLimitMs`), or the node is hung. */
const PROBE_LIMIT_MS = 2000;

/** mysql2's connection internals used here: its socket, cut to fail whatever waits on it. */
type Cuttable = { stream?: { destroy(error?: Error): void } };

/**
 * Cuts a connection at once: its socket is destroyed, the statement waiting on it fails with
 * `error`, and mysql2 drops it from its pool (never handed out again). A graceful `end()` or
 * `destroy()` would wait for the server, which a hung node never gives.
 */
function cut(connection: Connection | PoolConnection, error: Error = new Error('connection cut')): void {
  (connection as unknown as Cuttable).stream?.destroy(error);
}

export function isNodeDown(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  return (
    (typeof e?.code === 'string' && NETWORK_ERROR_CODES.has(e.code)) ||
    (typeof e?.errno === 'number' && NODE_DOWN_ERRNOS.has(e.errno))
  );
}

/**
 * The mysql2 pool TypeORM drives (passed as its `driver`), for a list of servers — one MySQL, or
 * the nodes of a Galera cluster (contract §17):
 *
 * - new connections come from the first node of the list that answers; a node that fails
 *   (network error, not Synced) is set aside and the next one used; a monitor probes the nodes
 *   every second, so a node that comes back is used again (failover and recovery in seconds);
 * - a hung node (sockets open, nothing answers) is a node lost: the monitor's probe has a time
 *   limit (2 s at most), and a node that misses it is set aside with every connection to it cut;
 *   every statement has a time limit too (`limitStatements`);
 * - a Galera node that refuses a statement as not ready (1047: joining, rejoining, a view change,
 *   `wsrep_reject_queries`) is a node lost for the moment too, not a conflict: it is set aside, and
 *   the statement runs on the next node (outside a transaction at once, see `notReady`; inside, the
 *   unit of work runs again whole);
 * - a server that refuses the credentials or the database of `DATABASE_URL` (1044, 1045, 1049,
 *   1698) is set aside; once none is left in use, `getConnection` fails at once with
 *   {@link DatabaseRefusedError} instead of waiting (a start fails fast, naming the URL);
 * - `getConnection` never waits longer than the acquire timeout: then it fails with
 *   {@link DatabaseUnavailableError}, which the API answers with 503;
 * - every session runs READ COMMITTED, with lock waits bounded by the acquire timeout, and on
 *   Galera with `wsrep_sync_wait` (reads see every commit made on any node before them).
 */
export class FailoverPool {
  private readonly nodes: Node[];
  private readonly ready = new WeakSet<PoolConnection>();
  private readonly waiters = new Set<Waiter>();
  private expiryTimer: NodeJS.Timeout | null = null;
  private lastAcquireTimeoutAt: number | null = null;
  private closed = false;
  private readonly monitorTimer: NodeJS.Timeout;
  private monitoring = false;
  /** The monitor's probe (and a KILL) get no longer than this: well under a statement's limit. */
  private readonly probeLimitMs: number;
  private readonly unlimited = new WeakSet<PoolConnection>();
  private statementTimeouts = 0;
  private nodesSetAside = 0;
  private readonly tracked = new WeakMap<PoolConnection, Tracked>();
  private lastProbeAt = 0;

  constructor(
    private readonly options: PoolOptions,
    private readonly settings: FailoverSettings,
  ) {
    this.probeLimitMs = Math.min(settings.acquireTimeoutMs, settings.queryTimeoutMs, PROBE_LIMIT_MS);
    this.nodes = settings.endpoints.map((endpoint) => ({
      endpoint,
      name: endpointName(endpoint),
      up: true,
      lastError: null,
      pool: null,
      monitor: null,
      galera: null,
      connections: new Set(),
      refusal: null,
    }));
    this.monitorTimer = setInterval(() => void this.monitor(), settings.monitorIntervalMs ?? 1000);
    this.monitorTimer.unref();
  }

  getConnection(callback: ConnectionCallback): void {
    try {
      assertOutsideUnit();
    } catch (error) {
      process.nextTick(callback, error);
      return;
    }
    // Within a unit of work's time limit, no longer than what it has left.
    const left = acquireTimeLeft();
    this.acquire(Math.min(this.settings.acquireTimeoutMs, left ?? Infinity), callback);
  }

  /** A connection of the first node that answers, within `waitMs`. */
  private acquire(waitMs: number, callback: ConnectionCallback): void {
    if (this.closed) {
      process.nextTick(callback, new Error('Pool is closed.'));
      return;
    }
    let finished = false;
    const finish = (error: Error | null, connection?: PoolConnection) => {
      if (finished) {
        connection?.release();
        return;
      }
      finished = true;
      this.waiters.delete(waiter);
      callback(error, connection);
    };
    const waiter: Waiter = {
      deadline: Date.now() + waitMs,
      expire: () => {
        // A unit of work out of time is not a sign of a busy pool (readiness).
        if (waitMs === this.settings.acquireTimeoutMs) this.lastAcquireTimeoutAt = Date.now();
        finish(this.unavailable(waitMs));
      },
      abort: (error) => finish(error),
    };
    this.addWaiter(waiter);

    const attempt = (): void => {
      if (finished) return;
      const node = this.activeNode();
      if (!node) {
        const refused = this.refusedByAll();
        if (refused) {
          finish(refused);
          return;
        }
        this.probeEagerly(); // the monitor looks for a node meanwhile
        setTimeout(attempt, RETRY_DELAY_MS).unref();
        return;
      }
      this.poolOf(node).getConnection((error, connection) => {
        if (finished) {
          connection?.release();
          return;
        }
        if (error) {
          this.failed(node, error);
          setTimeout(attempt, isNodeDown(error) || isRefusal(error) ? 0 : RETRY_DELAY_MS).unref();
          return;
        }
        if (!node.up) {
          // Set aside while this request waited: take a connection of the node in use instead.
          connection.destroy();
          attempt();
          return;
        }
        if (this.ready.has(connection)) {
          finish(null, connection);
          return;
        }
        this.limitStatements(node, connection);
        this.prepareSession(node, connection).then(
          () => {
            this.ready.add(connection);
            finish(null, connection);
          },
          (prepareError: unknown) => {
            connection.destroy();
            this.failed(node, prepareError);
            setTimeout(attempt, RETRY_DELAY_MS).unref();
          },
        );
      });
    };
    attempt();
  }

  /**
   * One timer for every request waiting for a connection (not one each: most acquisitions finish
   * at once): fails those past the acquire timeout.
   */
  private addWaiter(waiter: Waiter): void {
    this.waiters.add(waiter);
    this.expiryTimer ??= setInterval(() => {
      const now = Date.now();
      for (const w of this.waiters) if (w.deadline <= now) w.expire();
      if (this.waiters.size === 0 && this.expiryTimer) {
        clearInterval(this.expiryTimer);
        this.expiryTimer = null;
      }
    }, WAITER_SWEEP_MS);
  }

  /**
   * Closes every connection: gracefully, but a node that does not answer within the probe limit
   * gets its connections cut — shutdown never waits on a hung node (contract §17).
   */
  end(callback?: (error?: Error) => void): void {
    this.closed = true;
    clearInterval(this.monitorTimer);
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    this.expiryTimer = null;
    for (const waiter of this.waiters) waiter.abort(new Error('Pool is closed.'));
    const pools = this.nodes.map((node) => {
      if (node.monitor) cut(node.monitor);
      node.monitor = null;
      const pool = node.pool;
      node.pool = null;
      if (!pool) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const late = setTimeout(() => {
          this.cutConnections(node);
          resolve();
        }, this.probeLimitMs);
        late.unref();
        pool.end(() => {
          clearTimeout(late);
          resolve();
        });
      });
    });
    void Promise.all(pools).then(() => callback?.());
  }

  /**
   * Lifts the statement time limit from one connection until `restore` is called (before it goes
   * back to the pool): for migrations, whose DDL may rightly run for minutes.
   */
  unlimit(connection: PoolConnection): () => void {
    this.unlimited.add(connection);
    return () => this.unlimited.delete(connection);
  }

  status(): PoolStatus {
    return {
      active: this.activeNode()?.name ?? null,
      nodes: this.nodes.map((n) => ({ endpoint: n.name, up: n.up, lastError: n.lastError })),
      inUse: this.nodes.reduce((sum, n) => sum + (n.pool ? checkedOut(n.pool) : 0), 0),
      waiting: this.waiters.size,
      lastAcquireTimeoutAt: this.lastAcquireTimeoutAt,
      statementTimeouts: this.statementTimeouts,
      nodesSetAside: this.nodesSetAside,
    };
  }

  private activeNode(): Node | null {
    return this.nodes.find((n) => n.up) ?? null;
  }

  /**
   * When no server of the list is in use and one of them refused the credentials or the database
   * (the others being down): the error to fail at once with, instead of waiting for a server that
   * will not change its mind (on Galera the users and databases are the same on every node).
   */
  private refusedByAll(): DatabaseRefusedError | null {
    if (this.nodes.some((n) => n.up)) return null;
    const refused = this.nodes.find((n) => n.refusal);
    return refused ? new DatabaseRefusedError(this.maskedUrl(), refused.refusal) : null;
  }

  /** `DATABASE_URL` as configured, its password masked (for messages). */
  private maskedUrl(): string {
    const { user, password, database } = this.options;
    const credentials = user ? `${encodeURIComponent(user)}${password ? ':*****' : ''}@` : '';
    const hosts = this.nodes.map((n) => n.name).join(',');
    return `mysql://${credentials}${hosts}/${encodeURIComponent(database ?? '')}`;
  }

  /**
   * While requests wait for a node and none is in use, probes the ones set aside every
   * {@link EAGER_PROBE_MS} instead of every second: a node that was only briefly not ready (a
   * Galera view change) is used again sooner.
   */
  private probeEagerly(): void {
    if (Date.now() - this.lastProbeAt < EAGER_PROBE_MS) return;
    void this.monitor();
  }

  private unavailable(ms: number): DatabaseUnavailableError {
    if (this.activeNode()) {
      return new DatabaseUnavailableError(
        `No database connection became free within ${ms} ms`,
        'pool-exhausted',
      );
    }
    const errors = this.nodes.map((n) => `${n.name}: ${n.lastError ?? 'unknown'}`).join('; ');
    return new DatabaseUnavailableError(
      `No database server answered within ${ms} ms (${errors})`,
      'no-database',
    );
  }

  private poolOf(node: Node): Pool {
    node.pool ??= createPool({
      ...this.options,
      host: node.endpoint.host,
      port: node.endpoint.port,
      connectTimeout: Math.min(this.settings.acquireTimeoutMs, 3000),
      enableKeepAlive: true,
      // No stack trace captured per query (~4 % of a create's CPU): a database error's stack then
      // starts in mysql2, and the request id in the log says which request it was.
      trace: false,
      // Idle connections close after a minute (mysql2 only runs that timer when maxIdle < limit):
      // after a failover the pool of the node left behind empties by itself.
      maxIdle: Math.max(1, (this.options.connectionLimit ?? 10) - 1),
    });
    return node.pool;
  }

  /**
   * A node failed a request: a network failure, a Galera node not ready, or a server refusing the
   * credentials or database sets it aside (and closes its pool).
   */
  private failed(node: Node, error: unknown): void {
    node.lastError = describe(error);
    node.refusal = isRefusal(error) ? error : null;
    if ((!isNodeDown(error) && !isRefusal(error)) || !node.up) return;
    this.setAside(node, isNodeNotReady(error) ? 'not-ready' : 'failed');
  }

  /**
   * Stops using a node: new connections come from the next one; its pool is closed (idle
   * connections at once, those in use once their statement in flight has answered). `hung`: it did
   * not answer the monitor (or failed it), so the statements still waiting on it are cut too — they
   * fail now (a unit of work runs again on the next node) instead of at their time limit.
   * `not-ready`: a Galera node that answers but refuses statements (1047); the monitor keeps its
   * connection to see it ready again.
   */
  private setAside(node: Node, how: 'failed' | 'hung' | 'not-ready' = 'failed'): void {
    if (!node.up) return;
    node.up = false;
    this.nodesSetAside++;
    const pool = node.pool;
    node.pool = null;
    if (how === 'hung') this.cutConnections(node);
    pool?.end(() => undefined);
    if (how !== 'not-ready') {
      node.galera = null;
      if (node.monitor) cut(node.monitor);
      node.monitor = null;
    }
    const next = this.activeNode();
    this.settings.log?.warn(
      `Database ${node.name} set aside (${node.lastError ?? 'failed'}); ${next ? `using ${next.name}` : 'no other server answers'}`,
    );
  }

  /** Every second: checks the node in use, and probes the ones set aside so they come back. */
  private async monitor(): Promise<void> {
    if (this.monitoring || this.closed) return;
    this.monitoring = true;
    this.lastProbeAt = Date.now();
    try {
      await Promise.all(
        this.nodes.map(async (node) => {
          if (node.up && node !== this.activeNode()) return; // a standby: checked once needed
          try {
            await this.check(node);
            if (!node.up && !this.closed) {
              node.up = true;
              node.lastError = null;
              node.refusal = null;
              this.settings.log?.log(`Database ${node.name} answers again`);
            }
          } catch (error) {
            node.lastError = describe(error);
            node.refusal = isRefusal(error) ? error : null;
            // A Galera node that answers "not ready" keeps its monitor connection (it answered);
            // what it runs finishes or is refused by the node itself. Any other failure: the
            // node is gone or hung, its connections are cut.
            const notReady = isNodeNotReady(error);
            if (!notReady) {
              if (node.monitor) cut(node.monitor);
              node.monitor = null;
            }
            if (node.up) this.setAside(node, notReady ? 'not-ready' : isRefusal(error) ? 'failed' : 'hung');
          }
        }),
      );
    } finally {
      this.monitoring = false;
    }
  }

  /** One round trip on the node's monitor connection: the server answers and (Galera) is Synced. */
  private async check(node: Node): Promise<void> {
    const timeoutMs = this.probeLimitMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.checkOnce(node), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async checkOnce(node: Node): Promise<void> {
    if (!node.monitor) {
      const connection = createConnection({
        ...(this.options as ConnectionOptions),
        host: node.endpoint.host,
        port: node.endpoint.port,
        connectTimeout: this.probeLimitMs,
      });
      connection.on('error', () => {
        if (node.monitor === connection) node.monitor = null;
      });
      node.monitor = connection;
    }
    const db = node.monitor.promise();
    node.galera ??= await isGalera(db);
    if (node.galera) {
      await assertSynced(db);
      await assertTakesQueries(db);
    } else await db.query('SELECT 1');
  }

  /**
   * Gives every statement of a new pooled connection a time limit (contract §17): the statement limit,
   * or what is left of its unit of work's, if less. One that overruns it — or is asked for when no
   * time is left — fails with {@link StatementTimeoutError} and its connection is cut (never back
   * in the pool; the server's thread is killed, so its locks go too). A statement sent and not
   * answered in time sets its node aside, as a dead one: new connections come from the next node,
   * and the monitor brings it back once it answers (within a second for a node that was merely
   * slow). The statements of other requests on it run on, each within its own limit.
   */
  private limitStatements(node: Node, connection: PoolConnection): void {
    node.connections.add(connection);
    // mysql2 reports a cut connection's error to its command; this keeps a stray one from
    // becoming an unhandled 'error' event.
    connection.on('error', () => undefined);
    const socket = (connection as unknown as { stream?: NodeJS.EventEmitter }).stream;
    socket?.once('close', () => node.connections.delete(connection));
    const state: Tracked = { inTransaction: false, standIn: null, isStandIn: false };
    this.tracked.set(connection, state);
    type Query = (...args: unknown[]) => unknown;
    type Callback = (...results: unknown[]) => void;
    const query = (connection.query as Query).bind(connection);
    (connection as unknown as { query: Query }).query = (...args: unknown[]) => {
      if (state.standIn) return state.standIn.query(...(args as Parameters<PoolConnection['query']>));
      const callback = args[args.length - 1];
      if (typeof callback !== 'function') return query(...args);
      const sql = sqlOf(args[0]);
      let timer: NodeJS.Timeout | undefined;
      if (!this.unlimited.has(connection)) {
        const left = statementTimeLeft(connection);
        const limitMs = Math.min(this.settings.queryTimeoutMs, left ?? Infinity);
        if (limitMs <= 0) {
          this.overran(node, connection, 0);
          process.nextTick(callback, new StatementTimeoutError(0));
          return undefined;
        }
        timer = setTimeout(() => this.overran(node, connection, limitMs), limitMs);
      }
      args[args.length - 1] = (...results: unknown[]) => {
        clearTimeout(timer);
        const [error] = results;
        if (isNodeNotReady(error)) {
          this.notReady(node, connection, state, [...args.slice(0, -1), callback], error);
          return;
        }
        if (!error) trackTransaction(state, sql);
        (callback as Callback)(...results);
      };
      return query(...args);
    };
    // Released with the connection it stands for (TypeORM releases only the one it holds).
    const release = connection.release.bind(connection);
    connection.release = () => {
      const standIn = state.standIn;
      if (standIn) {
        state.standIn = null;
        this.unlimited.delete(standIn);
        unbindDeadline(standIn);
        standIn.release();
      }
      state.isStandIn = false;
      release();
    };
    // TypeORM's query runner asks for `connection.promise()` on every statement, and mysql2 answers
    // each call with a `require()` and a new wrapper (an EventEmitter with two listeners): ≈ 4 µs
    // per statement (docs/performance.md). The wrapper holds nothing per call, so one per connection
    // serves all.
    type PromiseOf = (promiseImpl?: PromiseConstructor) => unknown;
    const promise = (connection.promise as PromiseOf).bind(connection);
    let wrapper: unknown;
    (connection as unknown as { promise: PromiseOf }).promise = (promiseImpl) =>
      promiseImpl === undefined ? (wrapper ??= promise()) : promise(promiseImpl);
  }

  /**
   * A Galera node refused a statement of `connection` as not ready (1047): it did not run. The node
   * is set aside like a dead one (new connections come from the next node of the list, or from this
   * one once the monitor sees it ready again) and the connection is closed. Outside a transaction
   * the statement runs again at once on a connection of the node now in use, which stands in for
   * this one until it is released (its later statements go there too); within the connection's
   * time limit, or the acquire timeout. Inside a transaction — COMMIT included — the error goes
   * back to the unit of work, which runs again whole on another connection.
   */
  private notReady(
    node: Node,
    connection: PoolConnection,
    state: Tracked,
    args: unknown[],
    error: unknown,
  ): void {
    const callback = args[args.length - 1] as (...results: unknown[]) => void;
    node.lastError = describe(error);
    node.connections.delete(connection);
    if (node.up) this.setAside(node, 'not-ready');
    connection.destroy();
    if (state.inTransaction || state.isStandIn || this.closed) {
      callback(error);
      return;
    }
    const left = statementTimeLeft(connection);
    const waitMs = Math.min(this.settings.acquireTimeoutMs, left ?? Infinity);
    this.acquire(waitMs, (acquireError, standIn) => {
      if (acquireError || !standIn) {
        callback(acquireError ?? error);
        return;
      }
      const standInState = this.tracked.get(standIn);
      if (standInState) standInState.isStandIn = true;
      if (left !== null) bindDeadline(standIn, Date.now() + Math.max(left, 0));
      if (this.unlimited.has(connection)) this.unlimited.add(standIn);
      state.standIn = standIn;
      standIn.query(...(args as Parameters<PoolConnection['query']>));
    });
  }

  /** A statement got no answer within `limitMs` (0: no time was left to send it). */
  private overran(node: Node, connection: PoolConnection, limitMs: number): void {
    const error = new StatementTimeoutError(limitMs);
    this.statementTimeouts++;
    node.connections.delete(connection);
    const threadId = connection.threadId;
    cut(connection, error);
    this.kill(node, threadId);
    if (limitMs === 0 || !node.up) return; // nothing was asked of the node
    node.lastError = `statement limit: ${error.message}`;
    this.setAside(node);
  }

  /** Cuts every connection of a node's pool (it is hung or gone). */
  private cutConnections(node: Node): void {
    for (const connection of node.connections) cut(connection, lostNode(node));
    node.connections.clear();
  }

  /**
   * Ends a cut connection's thread on the server (best effort, within the probe limit): a
   * statement waiting on a lock or running long would otherwise go on, holding its locks, until
   * the server noticed the client gone. A hung node does not answer this either: it is dropped.
   */
  private kill(node: Node, threadId: number | null | undefined): void {
    if (!threadId || this.closed) return;
    const killer = createConnection({
      ...(this.options as ConnectionOptions),
      host: node.endpoint.host,
      port: node.endpoint.port,
      connectTimeout: this.probeLimitMs,
    });
    killer.on('error', () => undefined);
    const late = setTimeout(() => cut(killer), this.probeLimitMs);
    late.unref();
    killer.query(`KILL ${Number(threadId)}`, (error) => {
      clearTimeout(late);
      if (error) cut(killer);
      else killer.end(() => undefined);
    });
  }

  /** Session settings of a new pooled connection (contract §17). */
  private async prepareSession(node: Node, connection: PoolConnection): Promise<void> {
    const db = connection.promise();
    node.galera ??= await isGalera(db);
    const lockWaitSeconds = Math.max(1, Math.ceil(this.settings.acquireTimeoutMs / 1000));
    await db.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
    const settings = [
      `innodb_lock_wait_timeout = ${lockWaitSeconds}`,
      `lock_wait_timeout = ${lockWaitSeconds}`,
    ];
    if (node.galera) settings.push(`wsrep_sync_wait = ${this.settings.wsrepSyncWait}`);
    await db.query(`SET SESSION ${settings.join(', ')}`);
    if (node.galera) await assertSynced(db);
  }
}

type Queryable = { query(sql: string): Promise<[unknown, unknown]> };

async function isGalera(db: Queryable): Promise<boolean> {
  const [rows] = (await db.query(`SHOW VARIABLES LIKE 'wsrep_on'`)) as [{ Value?: string }[], unknown];
  return rows[0]?.Value === 'ON';
}

/** A Galera node takes queries only while it is part of the primary component and ready. */
async function assertSynced(db: Queryable): Promise<void> {
  const [rows] = (await db.query(`SHOW STATUS LIKE 'wsrep_ready'`)) as [{ Value?: string }[], unknown];
  if (rows[0]?.Value !== 'ON') {
    throw Object.assign(new Error('WSREP has not yet prepared node for application use'), { errno: 1047 });
  }
}

/**
 * A Galera node an operator drains with `wsrep_reject_queries` (MariaDB) stays Synced but refuses
 * statements (1047): the monitor keeps it aside meanwhile (a server without the variable takes them).
 */
async function assertTakesQueries(db: Queryable): Promise<void> {
  const [rows] = (await db.query(`SHOW GLOBAL VARIABLES LIKE 'wsrep_reject_queries'`)) as [
    { Value?: string }[],
    unknown,
  ];
  const value = rows[0]?.Value;
  if (value !== undefined && value !== 'NONE') {
    throw Object.assign(new Error(`The node rejects queries (wsrep_reject_queries = ${value})`), {
      errno: 1047,
    });
  }
}

/** What a statement cut on a set-aside node fails with: a lost connection (a unit runs again). */
function lostNode(node: Node): Error {
  return Object.assign(new Error(`Database ${node.name} did not answer: connection cut`), {
    code: 'PROTOCOL_CONNECTION_LOST',
    fatal: true,
  });
}

/** The SQL text of a mysql2 `query` call's first argument (a string or `{ sql }`). */
function sqlOf(arg: unknown): string {
  if (typeof arg === 'string') return arg;
  const sql = (arg as { sql?: unknown } | null)?.sql;
  return typeof sql === 'string' ? sql : '';
}

/** Follows the transaction a statement that succeeded opened or closed (TypeORM's own statements). */
function trackTransaction(state: Tracked, sql: string): void {
  if (sql.length > 24) return; // not one of them (most statements: one comparison)
  if (/^\s*(START\s+TRANSACTION|BEGIN)\b/i.test(sql)) state.inTransaction = true;
  else if (/^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i.test(sql)) state.inTransaction = false;
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  return typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/**
 * The `driver` object TypeORM loads instead of `mysql2` (its MySQL driver only calls
 * `createPool`): every pool it creates is a {@link FailoverPool}. Keeps the last pool so the
 * readiness probe can read its status.
 */
export class FailoverDriver {
  pool: FailoverPool | null = null;

  constructor(private readonly settings: FailoverSettings) {}

  createPool(options: PoolOptions): FailoverPool {
    this.pool = new FailoverPool(options, this.settings);
    return this.pool;
  }
}

/**
 * Runs `work` with no statement time limit on `runner`'s connection (MySQL; elsewhere it just
 * runs): for migrations, whose DDL may rightly run for minutes on a large table.
 */
export async function withoutStatementLimit<T>(runner: QueryRunner, work: () => Promise<T>): Promise<T> {
  const driver = (runner.connection.options as { driver?: unknown }).driver;
  const pool = driver instanceof FailoverDriver ? driver.pool : null;
  if (!pool) return work();
  const restore = pool.unlimit((await runner.connect()) as PoolConnection);
  try {
    return await work();
  } finally {
    restore();
  }
}
