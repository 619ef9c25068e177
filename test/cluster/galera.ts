import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnection } from 'mysql2/promise';

/**
 * A 3-node MariaDB Galera cluster on this machine, from Debian's packages (`mariadb-server`,
 * `galera-4`, `rsync`), for the cluster tests (contract §17): `mariadbd --no-defaults` per node with
 * its own data directory, client ports 4306–4308, Galera ports 4567/4577/4587 (IST +1, SST +2),
 * `--wsrep-new-cluster` on the first node, rsync state transfer. Nodes run as the `mysql` user
 * (rsync's daemon cannot read a root-owned data directory). See docs/operations.md (Galera).
 */

export const NODE_COUNT = 3;
const CLIENT_PORT = 4306;
const GALERA_PORT = 4567;
const GALERA_STEP = 10;
const PROVIDER = '/usr/lib/galera/libgalera_smm.so';
/**
 * The failure-detection settings docs/operations.md recommends (Galera's defaults: 1 s, 5 s, 15 s,
 * 0.5 s, 1 s): a dead node is suspected after 2 s of silence, checked every 0.25 s, and the
 * survivors' new view is agreed with join messages resent every 0.5 s.
 */
export const EVS_TIMEOUTS = [
  'evs.keepalive_period=PT0.5S',
  'evs.suspect_timeout=PT2S',
  'evs.inactive_timeout=PT4S',
  'evs.inactive_check_period=PT0.25S',
  'evs.join_retrans_period=PT0.5S',
];

export interface ClusterOptions {
  /** Parent directory of the node data directories (default: under the OS temp dir). */
  baseDir?: string;
  log?: (line: string) => void;
}

export const clientPort = (node: number): number => CLIENT_PORT + node;
const galeraPort = (node: number): number => GALERA_PORT + node * GALERA_STEP;
const clusterAddress = (): string =>
  `gcomm://${Array.from({ length: NODE_COUNT }, (_, i) => `127.0.0.1:${galeraPort(i)}`).join(',')}`;

/** `mysql://root@127.0.0.1:<port>/<database>` of one node, or of several as a host list. */
export function nodeUrl(nodes: number[], database: string): string {
  return `mysql://root@${nodes.map((n) => `127.0.0.1:${clientPort(n)}`).join(',')}/${database}`;
}

export class GaleraCluster {
  readonly baseDir: string;
  private readonly processes = new Map<number, ChildProcess>();
  private readonly log: (line: string) => void;

  constructor(options: ClusterOptions = {}) {
    this.baseDir = options.baseDir ?? join(tmpdir(), 'checkout-galera');
    this.log = options.log ?? ((line) => process.stderr.write(`[galera] ${line}\n`));
  }

  private dir(node: number): string {
    return join(this.baseDir, `node${node}`);
  }

  private socket(node: number): string {
    return join(this.dir(node), 'mysqld.sock');
  }

  /** Initialises three empty data directories and starts the cluster; resolves once all are Synced. */
  async start(): Promise<void> {
    await this.stopLeftovers();
    rmSync(this.baseDir, { recursive: true, force: true });
    mkdirSync(this.baseDir, { recursive: true });
    chmodSync(this.baseDir, 0o711);
    for (let node = 0; node < NODE_COUNT; node++) this.initialise(node);
    const started = Date.now();
    this.launch(0, { bootstrap: true });
    await this.waitSynced(0, 60_000);
    await this.allowRootOverTcp(0);
    for (let node = 1; node < NODE_COUNT; node++) this.launch(node);
    for (let node = 1; node < NODE_COUNT; node++) await this.waitSynced(node, 90_000);
    await this.waitClusterSize(NODE_COUNT, 30_000);
    this.log(`cluster of ${NODE_COUNT} Synced in ${Date.now() - started} ms`);
  }

  /** SIGKILLs one node's mariadbd (a crash: no clean leave). */
  async kill(node: number): Promise<void> {
    const child = this.processes.get(node);
    const pid = child?.pid ?? this.pidFromFile(node);
    if (!pid) throw new Error(`node ${node} is not running`);
    process.kill(pid, 'SIGKILL');
    await this.waitExit(node, pid);
    this.log(`node ${node} killed`);
  }

  /**
   * SIGSTOPs one node's mariadbd: a hung node (a frozen VM, a partition that drops packets) — its
   * sockets stay open, the kernel still accepts connections, nothing answers.
   */
  freeze(node: number): void {
    process.kill(this.pidOf(node), 'SIGSTOP');
    this.log(`node ${node} frozen (SIGSTOP)`);
  }

  /**
   * SIGCONTs a frozen node. The others evicted it meanwhile: it finds itself outside the primary
   * component and rejoins (IST). Resolves once it is Synced again, with how long that took.
   */
  async thaw(node: number, timeoutMs = 90_000): Promise<number> {
    const started = Date.now();
    process.kill(this.pidOf(node), 'SIGCONT');
    // Right after SIGCONT it still shows its old view (Synced): wait until another node counts it
    // back in, then until it is Synced again.
    const other = (node + 1) % NODE_COUNT;
    const deadline = started + timeoutMs;
    while (Number((await this.status(other))?.wsrep_cluster_size ?? 0) !== NODE_COUNT) {
      if (Date.now() > deadline)
        throw new Error(`node ${node} not back in the cluster within ${timeoutMs} ms`);
      await sleep(250);
    }
    await this.waitSynced(node, Math.max(deadline - Date.now(), 1000));
    const took = Date.now() - started;
    this.log(`node ${node} thawed (SIGCONT), Synced again in ${took} ms`);
    return took;
  }

  private pidOf(node: number): number {
    const pid = this.processes.get(node)?.pid ?? this.pidFromFile(node);
    if (!pid) throw new Error(`node ${node} is not running`);
    return pid;
  }

  /**
   * Starts a stopped node again, as Debian's systemd unit does after a crash: `galera_recovery`
   * (`mariadbd --wsrep-recover`) reads the last committed position from InnoDB, and the node
   * starts from it (`--wsrep-start-position`), so it rejoins by incremental state transfer from a
   * donor's gcache instead of copying the whole data directory (rsync SST, which blocks the donor
   * and loads a small machine's disk for seconds). Resolves once it is Synced. The donor is node 2
   * (the one the tests pin no replica to) unless node 2 is the one rejoining.
   */
  async restart(node: number, timeoutMs = 90_000): Promise<number> {
    const started = Date.now();
    rmSync(join(this.dir(node), 'data', 'mysqld.pid'), { force: true });
    const position = this.recoverPosition(node);
    const donor = node === NODE_COUNT - 1 ? 0 : NODE_COUNT - 1;
    this.launch(node, { donor: `n${donor}`, startPosition: position });
    await this.waitSynced(node, timeoutMs);
    const took = Date.now() - started;
    this.log(`node ${node} rejoined in ${took} ms (${this.stateTransfer(node)})`);
    return took;
  }

  /** `uuid:seqno` of the last transaction a stopped node committed (what `galera_recovery` prints). */
  private recoverPosition(node: number): string {
    const log = join(this.dir(node), 'recover.log');
    rmSync(log, { force: true });
    execFileSync('/usr/sbin/mariadbd', [...this.serverArgs(node), `--log-error=${log}`, '--wsrep-recover'], {
      stdio: 'ignore',
      timeout: 60_000,
    });
    const found = /WSREP: Recovered position: ?(\S+:-?\d+)/.exec(readFileSync(log, 'utf8'));
    if (!found)
      throw new Error(`node ${node}: no position recovered:\n${readFileSync(log, 'utf8').slice(-2000)}`);
    return found[1];
  }

  /** How the node's last start caught up (incremental or full state transfer), from its error log. */
  private stateTransfer(node: number): string {
    const log = this.errorLog(node);
    const since = log.slice(Math.max(log.lastIndexOf('WSREP: Loading provider'), 0));
    if (/rsync IST completed on joiner/.test(since)) return 'IST';
    if (/rsync SST completed on joiner/.test(since)) return 'SST';
    return 'no transfer';
  }

  /**
   * A node's membership changes (views, state shifts, suspicions) logged since `sinceMs`: what a
   * fault test prints when a node it did not touch failed requests.
   */
  membershipChanges(node: number, sinceMs: number): string {
    const since = new Date(sinceMs - 1000);
    const stamp = (line: string) => /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/.exec(line)?.[1];
    return this.errorLog(node)
      .split('\n')
      .filter((line) => /Shifting |view\(view_id|suspecting node|declaring inactive|non-primary/.test(line))
      .filter((line) => {
        const at = stamp(line);
        return at !== undefined && new Date(at.replace(' ', 'T')) >= since;
      })
      .map((line) => `[node ${node}] ${line}`)
      .join('\n');
  }

  /** Stops every node (started by this process or an earlier one) and removes the data directories. */
  async stop(): Promise<void> {
    for (let node = 0; node < NODE_COUNT; node++) {
      // The pid file too: another process (a test file) may have restarted the node since.
      for (const pid of new Set([this.processes.get(node)?.pid, this.pidFromFile(node)])) {
        if (pid && isAlive(pid) && isMariadb(pid)) {
          process.kill(pid, 'SIGKILL');
          await this.waitExit(node, pid);
        }
      }
    }
    this.processes.clear();
    rmSync(this.baseDir, { recursive: true, force: true });
  }

  /** `SHOW STATUS` values of one node, or null when it does not answer. */
  async status(node: number): Promise<Record<string, string> | null> {
    try {
      const connection = await createConnection({
        socketPath: this.socket(node),
        user: 'root',
        connectTimeout: 2000,
      });
      try {
        const [rows] = await connection.query(
          "SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_ready')",
        );
        return Object.fromEntries(
          (rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, r.Value]),
        );
      } finally {
        await connection.end();
      }
    } catch {
      return null;
    }
  }

  /** Runs SQL as root on one node (over its socket), reading every commit of the cluster. */
  async query(node: number, sql: string, params: unknown[] = []): Promise<unknown[]> {
    const connection = await createConnection({
      socketPath: this.socket(node),
      user: 'root',
      connectTimeout: 5000,
    });
    try {
      await connection.query('SET SESSION wsrep_sync_wait = 1');
      const [rows] = await connection.query(sql, params);
      return Array.isArray(rows) ? rows : [];
    } finally {
      await connection.end();
    }
  }

  private initialise(node: number): void {
    const dir = this.dir(node);
    mkdirSync(join(dir, 'data'), { recursive: true });
    execFileSync('chown', ['-R', 'mysql:mysql', dir]);
    execFileSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        '--user=mysql',
        `--datadir=${join(dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { stdio: 'ignore' },
    );
  }

  private launch(
    node: number,
    options: { bootstrap?: boolean; donor?: string; startPosition?: string } = {},
  ): void {
    const args = [...this.serverArgs(node), `--log-error=${join(this.dir(node), 'error.log')}`];
    if (options.bootstrap) args.push('--wsrep-new-cluster');
    if (options.donor) args.push(`--wsrep-sst-donor=${options.donor}`);
    if (options.startPosition) args.push(`--wsrep-start-position=${options.startPosition}`);
    // Detached: the nodes outlive the command that started them (`galera.js start`); `stop`
    // finds them again by their pid files.
    const child = spawn('/usr/sbin/mariadbd', args, { stdio: 'ignore', detached: true });
    child.on('error', (error) => this.log(`node ${node}: ${error.message}`));
    child.unref();
    this.processes.set(node, child);
  }

  /** The options every run of a node's `mariadbd` takes (its start, and position recovery). */
  private serverArgs(node: number): string[] {
    const dir = this.dir(node);
    const g = galeraPort(node);
    return [
      '--no-defaults',
      '--user=mysql',
      `--datadir=${join(dir, 'data')}`,
      `--socket=${this.socket(node)}`,
      `--port=${clientPort(node)}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${join(dir, 'data', 'mysqld.pid')}`,
      '--skip-name-resolve',
      '--binlog-format=ROW',
      '--innodb-autoinc-lock-mode=2',
      '--innodb-flush-log-at-trx-commit=2',
      '--innodb-buffer-pool-size=128M',
      '--max-connections=300',
      '--wsrep-on=ON',
      `--wsrep-provider=${PROVIDER}`,
      `--wsrep-cluster-address=${clusterAddress()}`,
      `--wsrep-node-address=127.0.0.1:${g}`,
      `--wsrep-node-name=n${node}`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${g + 2}`,
      `--wsrep-provider-options=${[
        `gmcast.listen_addr=tcp://127.0.0.1:${g}`,
        `ist.recv_addr=127.0.0.1:${g + 1}`,
        'gcache.size=64M',
        // A dead node stalls every commit of the cluster until it is declared gone (5 s by
        // default): the operations guide recommends these so requests still answer within 5 s.
        ...EVS_TIMEOUTS,
      ].join(';')}`,
    ];
  }

  private async waitSynced(node: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.status(node);
      if (status?.wsrep_local_state_comment === 'Synced' && status.wsrep_ready === 'ON') return;
      const child = this.processes.get(node);
      if (child && child.exitCode !== null) {
        throw new Error(
          `node ${node} exited (${child.exitCode}) while starting:\n${this.errorLogTail(node)}`,
        );
      }
      if (Date.now() > deadline) {
        throw new Error(`node ${node} not Synced within ${timeoutMs} ms:\n${this.errorLogTail(node)}`);
      }
      await sleep(250);
    }
  }

  private async waitClusterSize(size: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Number((await this.status(0))?.wsrep_cluster_size ?? 0) !== size) {
      if (Date.now() > deadline) throw new Error(`cluster size never reached ${size}`);
      await sleep(250);
    }
  }

  /** Root over TCP with an empty password (the data directory was made with normal authentication). */
  private async allowRootOverTcp(node: number): Promise<void> {
    await this.query(node, "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''");
    await this.query(node, "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION");
  }

  private async waitExit(node: number, pid: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (isAlive(pid)) {
      if (Date.now() > deadline) throw new Error(`node ${node} (pid ${pid}) did not exit`);
      await sleep(100);
    }
  }

  private pidFromFile(node: number): number | null {
    const file = join(this.dir(node), 'data', 'mysqld.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || null : null;
  }

  /** Kills nodes of an earlier run that was not stopped (their pid files are still there). */
  private async stopLeftovers(): Promise<void> {
    for (let node = 0; node < NODE_COUNT; node++) {
      const pid = this.pidFromFile(node);
      if (pid && isAlive(pid) && isMariadb(pid)) {
        process.kill(pid, 'SIGKILL');
        await this.waitExit(node, pid);
        this.log(`stopped node ${node} left over from an earlier run (pid ${pid})`);
      }
    }
  }

  private errorLog(node: number): string {
    const file = join(this.dir(node), 'error.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  private errorLogTail(node: number): string {
    return this.errorLog(node).split('\n').slice(-25).join('\n') || '(no error log)';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isMariadb(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('mariadbd');
  } catch {
    return false;
  }
}
