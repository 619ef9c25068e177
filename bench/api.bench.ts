// `npm run bench`: CPU per request of the BUILT service's hot paths against two references measured
// in the same run: a bare NestJS + Express ping (bench/ping-server.ts: the framework) and the floor
// (bench/floor-server.ts: the same externally visible work with nothing else), on a fresh
// MySQL database, 10 connections. Each round: ping, create and floor-create, ping, retrieve and
// floor-retrieve, ping (service and floor side by side, their order alternating per round), so
// machine noise that drifts over the run cancels out in the service ÷ floor ratio of each round.
// The create legs send a merchant's usual body (webhook_url, notifications, customer fields) to a
// local webhook receiver and are counted until every `created` webhook has arrived and its attempt
// has been recorded.
// Per leg: requests/s, p50/p99, CPU µs per request of the server and of mariadbd (from /proc),
// SQL statements per request (MariaDB's `Questions` counter), failures. Then per round service ÷
// floor and service ÷ ping, and a summary (median and spread over the rounds).
//   MYSQL_URL          server to use (default mysql://root@127.0.0.1:3306/); a fresh database is created and dropped
//   BENCH_SECONDS      length of each leg (default 10)
//   BENCH_ROUNDS       rounds (default 5)
//   BENCH_CONNECTIONS  concurrent connections (default 10)
//   BENCH_NODE_ARGS    extra node flags for the service process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
//   BENCH_WEB_CONCURRENCY  worker processes of the service (WEB_CONCURRENCY; default 1); CPU counts them all
import 'reflect-metadata';
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { transactionBody } from '../test/factories/transaction.factory';
import { seedBasics } from '../test/setup/fixtures';
import { ADMIN, freePort, startApp } from '../test/setup/test-app';
import { createMysqlDatabase, TestDatabase } from '../test/setup/test-database';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PATH = '/b/checkout/v1/pymt-txn/';
const WEBHOOK_WAIT_MS = 120_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** The same public base URL for the service and the floor: the same representation bytes. */
const PUBLIC_BASE_URL = 'https://checkout.example.com';

interface Leg {
  name: string;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
  /** CPU µs of the server process per request. */
  cpuUs: number;
  /** CPU µs of mariadbd per request. */
  dbCpuUs: number;
  /** SQL statements the database received per request. */
  statements: number;
}

/** The fields of /proc/<pid>/stat after the command name, or null once the process is gone. */
function statFields(pid: number | string): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

/**
 * utime + stime in µs of a process and its living children (WEB_CONCURRENCY workers), from /proc
 * (Linux; clock ticks of 10 ms).
 */
function cpuUs(pid: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (!fields) continue;
    if (Number(entry) === pid || Number(fields[1]) === pid) {
      total += (Number(fields[11]) + Number(fields[12])) * 10_000;
    }
  }
  return total;
}

/** The database server's pid (mariadbd or mysqld on this machine), or null when it runs elsewhere. */
function databasePid(): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'mariadbd' || comm === 'mysqld') return Number(entry);
    } catch {
      /* gone */
    }
  }
  return null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Migrates and seeds through the services (KWD/USD/JPY, the `sandbox` gateway, an API key), as the tests do. */
async function seed(db: TestDatabase): Promise<string> {
  const seeder = await startApp({ db });
  try {
    return (await seedBasics(seeder)).apiKey;
  } finally {
    await seeder.close();
  }
}

async function startProcess(
  script: string,
  env: Record<string, string>,
  readyPath: string,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, resolve(__dirname, '..', script)], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    const ok = await fetch(`${url}${readyPath}`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return { child, url };
    await sleep(200);
  }
  throw new Error(`${script} did not start`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
}

/** MariaDB's global count of statements received (its own SHOW STATUS included, hence the -1 below). */
async function questions(sql: Connection): Promise<number> {
  const [rows] = await sql.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number(rows[0].Value);
}

/** Counts the webhooks it receives; answers 200 at once, as a well-behaved receiver does. */
class WebhookReceiver {
  received = 0;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const receiver: WebhookReceiver = new WebhookReceiver(
      createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          receiver.received++;
          res.writeHead(200, { 'Content-Length': '0' }).end();
        });
      }),
    );
    await new Promise<void>((r) => receiver.server.listen(0, '127.0.0.1', r));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async until(count: number): Promise<void> {
    const deadline = Date.now() + WEBHOOK_WAIT_MS;
    while (this.received < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.received} of ${count} webhooks arrived`);
      await sleep(20);
    }
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** One leg: autocannon at CONNECTIONS for SECONDS, then `settle` (the webhooks), all counted. */
async function leg(
  name: string,
  pid: number,
  dbPid: number | null,
  sql: Connection,
  options: autocannon.Options,
  settle: (created: number) => Promise<void> = () => Promise.resolve(),
): Promise<Leg> {
  const questionsBefore = await questions(sql);
  const cpuBefore = cpuUs(pid);
  const dbBefore = dbPid ? cpuUs(dbPid) : 0;
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  await settle(result['2xx']);
  const cpu = cpuUs(pid) - cpuBefore;
  const dbCpu = dbPid ? cpuUs(dbPid) - dbBefore : 0;
  const statements = (await questions(sql)) - questionsBefore - 1;
  const requests = Math.max(1, result.requests.total);
  return {
    name,
    requests: result.requests.total,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    cpuUs: cpu / requests,
    dbCpuUs: dbCpu / requests,
    statements: statements / requests,
  };
}

function printTable(legs: Leg[]): void {
  console.log('| leg | req/s | CPU µs/req | mariadbd µs/req | SQL/req | p50 ms | p99 ms | failed |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const l of legs) {
    console.log(
      `| ${l.name} | ${l.perSecond.toFixed(0)} | ${l.cpuUs.toFixed(0)} | ${l.dbCpuUs.toFixed(0)} | ` +
        `${l.statements.toFixed(1)} | ${l.p50} | ${l.p99} | ${l.failures} |`,
    );
  }
  console.log('');
}

/** One round's legs by role. */
interface Round {
  ping: Leg[];
  create: Leg;
  floorCreate: Leg;
  retrieve: Leg;
  floorRetrieve: Leg;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs: number[], digits = 2): string =>
  `median ${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

function roundRatios(r: Round): {
  create: number;
  retrieve: number;
  createPing: number;
  retrievePing: number;
} {
  const [p1, p2, p3] = r.ping;
  return {
    create: r.create.cpuUs / r.floorCreate.cpuUs,
    retrieve: r.retrieve.cpuUs / r.floorRetrieve.cpuUs,
    createPing: r.create.cpuUs / ((p1.cpuUs + p2.cpuUs) / 2),
    retrievePing: r.retrieve.cpuUs / ((p2.cpuUs + p3.cpuUs) / 2),
  };
}

function printSummary(rounds: Round[]): void {
  console.log(
    `\n## Summary: ${rounds.length} rounds, ${CONNECTIONS} connections, ${SECONDS} s per leg, ` +
      `${cpus().length} CPUs, Node ${process.version}, WEB_CONCURRENCY ${process.env.BENCH_WEB_CONCURRENCY ?? '1'}, ` +
      `load average ${loadavg()[0].toFixed(1)}\n`,
  );
  const ratios = rounds.map(roundRatios);
  const pings = rounds.flatMap((r) => r.ping.map((l) => l.cpuUs));
  const of = (pick: (r: Round) => Leg) => rounds.map(pick);
  const row = (name: string, legs: Leg[]) =>
    console.log(
      `| ${name} | ${spread(
        legs.map((l) => l.cpuUs),
        0,
      )} | ${spread(
        legs.map((l) => l.statements),
        1,
      )} | ` +
        `${spread(
          legs.map((l) => l.p99),
          0,
        )} | ${legs.reduce((n, l) => n + l.failures, 0)} |`,
    );
  console.log('| leg | CPU µs/req | SQL/req | p99 ms | failed |');
  console.log('|---|---|---|---|---:|');
  row(
    'ping',
    rounds.flatMap((r) => r.ping),
  );
  row(
    'create + its webhook',
    of((r) => r.create),
  );
  row(
    'floor-create + its webhook',
    of((r) => r.floorCreate),
  );
  row(
    'retrieve',
    of((r) => r.retrieve),
  );
  row(
    'floor-retrieve',
    of((r) => r.floorRetrieve),
  );
  console.log('');
  console.log(`create ÷ floor:   ${spread(ratios.map((x) => x.create))}   (goal ≤ 1.25)`);
  console.log(`retrieve ÷ floor: ${spread(ratios.map((x) => x.retrieve))}   (goal ≤ 1.25)`);
  console.log(
    `create ÷ ping:    ${spread(
      ratios.map((x) => x.createPing),
      1,
    )}`,
  );
  console.log(
    `retrieve ÷ ping:  ${spread(
      ratios.map((x) => x.retrievePing),
      1,
    )}`,
  );
  console.log(
    `SQL per create: service ${median(of((r) => r.create).map((l) => l.statements)).toFixed(1)}, ` +
      `floor ${median(of((r) => r.floorCreate).map((l) => l.statements)).toFixed(1)}   (goal ≤ floor + 0.5)`,
  );
  console.log(
    `p99 create: service ${median(of((r) => r.create).map((l) => l.p99))} ms, floor ${median(of((r) => r.floorCreate).map((l) => l.p99))} ms; ` +
      `retrieve: service ${median(of((r) => r.retrieve).map((l) => l.p99))} ms, floor ${median(of((r) => r.floorRetrieve).map((l) => l.p99))} ms   (goal ≤ 1.5×)`,
  );
  console.log(`ping CPU µs/req: ${spread(pings, 0)}`);
}

async function main(): Promise<void> {
  const mysqlUrl = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
  const db = await createMysqlDatabase(mysqlUrl, 'checkout_bench');
  const receiver = await WebhookReceiver.start();
  const dbPid = databasePid();
  let sql: Connection | undefined;
  try {
    const auth = await seed(db);
    sql = await createConnection(mysqlUrl);
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const ping = await startProcess('bench/ping-server.js', {}, '/ping');
    const shared = { PUBLIC_BASE_URL: PUBLIC_BASE_URL, WEBHOOK_SIGNING_KEY: 'bench-signing-key' };
    const service = await startProcess(
      'src/main.js',
      {
        ...db.env,
        ...shared,
        LOG_LEVEL: 'info',
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEB_CONCURRENCY: process.env.BENCH_WEB_CONCURRENCY ?? '1',
      },
      `${PATH}0`,
      nodeArgs,
    );
    const floor = await startProcess(
      'bench/floor-server.js',
      { ...db.env, ...shared, FLOOR_AUTHORIZATION: auth },
      `${PATH}0`,
      (process.env.BENCH_FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean),
    );
    const headers = { Authorization: auth, 'Content-Type': 'application/json' };
    const body = JSON.stringify(
      transactionBody({
        webhook_url: receiver.url,
        customer_first_name: 'Jane',
        customer_last_name: 'Doe',
        customer_email: 'jane@example.com',
        customer_phone: '96550000000',
        notifications: { email: ['paid', 'refunded'], sms: ['paid'] },
        extra: { cart_id: 'c-1029', channel: 'web' },
      }),
    );
    const createOn = (url: string): autocannon.Options => ({
      url: `${url}${PATH}`,
      method: 'POST',
      headers,
      body,
    });
    const pingOptions: autocannon.Options = { url: `${ping.url}/ping` };
    try {
      // Warm-up (JIT, pools), then a pool of sessions to read back from each.
      await autocannon({ ...createOn(service.url), connections: CONNECTIONS, duration: 2 });
      await autocannon({ ...createOn(floor.url), connections: CONNECTIONS, duration: 2 });
      await autocannon({ ...pingOptions, connections: CONNECTIONS, duration: 2 });
      const sessionsOf = async (url: string): Promise<string[]> => {
        const ids: string[] = [];
        for (let i = 0; i < 200; i++) {
          const res = await fetch(`${url}${PATH}`, { method: 'POST', headers, body });
          if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
          ids.push(((await res.json()) as { session_id: string }).session_id);
        }
        return ids;
      };
      const serviceIds = await sessionsOf(service.url);
      const floorIds = await sessionsOf(floor.url);
      const sample = await Promise.all(
        [service.url, floor.url].map((u, i) =>
          fetch(`${u}${PATH}${(i ? floorIds : serviceIds)[0]}/`).then((r) => r.text()),
        ),
      );
      const keys = sample.map((text) => Object.keys(JSON.parse(text) as object).join());
      console.log(
        `representation: service ${sample[0].length} bytes, floor ${sample[1].length} bytes, ` +
          `same fields in the same order: ${keys[0] === keys[1]}`,
      );
      await sleep(1000); // the warm-up's webhooks
      const pidOf = (p: { child: ChildProcess }) => p.child.pid!;
      const retrieveOn = (url: string, ids: string[]): autocannon.Options => ({
        url,
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => ({
              ...request,
              path: `${PATH}${ids[Math.floor(Math.random() * ids.length)]}/`,
            }),
          },
        ],
      });
      const createLeg = async (name: string, target: { child: ChildProcess; url: string }): Promise<Leg> => {
        const before = receiver.received;
        return leg(name, pidOf(target), dbPid, sql!, createOn(target.url), async (created) => {
          await receiver.until(before + created);
          await sleep(200); // the batched finishes of the last attempts
        });
      };
      const pingLeg = (n: number) => leg(`ping ${n}`, pidOf(ping), dbPid, sql!, pingOptions);
      const rounds: Round[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        // The service's and the floor's legs side by side, in alternating order per round.
        const pair = async <T>(a: () => Promise<T>, b: () => Promise<T>): Promise<[T, T]> => {
          if (round % 2) return [await a(), await b()];
          const second = await b();
          return [await a(), second];
        };
        const p1 = await pingLeg(1);
        const [create, floorCreate] = await pair(
          () => createLeg('create + its webhook', service),
          () => createLeg('floor-create + its webhook', floor),
        );
        const p2 = await pingLeg(2);
        const [retrieve, floorRetrieve] = await pair(
          () => leg('retrieve', pidOf(service), dbPid, sql!, retrieveOn(service.url, serviceIds)),
          () => leg('floor-retrieve', pidOf(floor), dbPid, sql!, retrieveOn(floor.url, floorIds)),
        );
        const p3 = await pingLeg(3);
        const r: Round = { ping: [p1, p2, p3], create, floorCreate, retrieve, floorRetrieve };
        rounds.push(r);
        const x = roundRatios(r);
        console.log(`\n### Round ${round} of ${ROUNDS} (load average ${loadavg()[0].toFixed(1)})\n`);
        printTable([p1, create, floorCreate, p2, retrieve, floorRetrieve, p3]);
        console.log(
          `create ÷ floor ${x.create.toFixed(2)} (÷ ping ${x.createPing.toFixed(1)}), ` +
            `retrieve ÷ floor ${x.retrieve.toFixed(2)} (÷ ping ${x.retrievePing.toFixed(1)}); ` +
            `SQL per create: service ${create.statements.toFixed(1)}, floor ${floorCreate.statements.toFixed(1)}`,
        );
      }
      printSummary(rounds);
      if (
        rounds.some((r) =>
          [...r.ping, r.create, r.floorCreate, r.retrieve, r.floorRetrieve].some((l) => l.failures > 0),
        )
      )
        process.exitCode = 1;
    } finally {
      await stopProcess(service.child);
      await stopProcess(floor.child);
      await stopProcess(ping.child);
    }
  } finally {
    await sql?.end();
    await receiver.stop();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
