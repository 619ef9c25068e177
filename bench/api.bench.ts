// `npm run bench`: CPU per request of the BUILT service's hot paths against a bare NestJS + Express
// ping measured in the same run (bench/ping-server.ts), on a fresh MySQL database, 10 connections.
// Legs, one after the other: ping, create, ping, retrieve, ping. Each service leg is compared with
// the mean of the ping legs on either side, so machine noise that drifts over the run cancels out.
// The create leg sends a merchant's usual body (webhook_url, notifications, customer fields) to a
// local webhook receiver and is counted until every `created` webhook has arrived.
// Per leg: requests/s, p50/p99, CPU µs per request of the server and of mariadbd (from /proc),
// SQL statements per request (MariaDB's `Questions` counter), failures.
//   MYSQL_URL          server to use (default mysql://root@127.0.0.1:3306/); a fresh database is created and dropped
//   BENCH_SECONDS      length of each leg (default 10)
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

function printTable(legs: Leg[], ratios: string[]): void {
  console.log(
    `\n${CONNECTIONS} connections, ${SECONDS} s per leg, ${cpus().length} CPUs, Node ${process.version}, ` +
      `WEB_CONCURRENCY ${process.env.BENCH_WEB_CONCURRENCY ?? '1'}, ` +
      `load average ${loadavg()[0].toFixed(1)}\n`,
  );
  console.log('| leg | req/s | CPU µs/req | mariadbd µs/req | SQL/req | p50 ms | p99 ms | failed |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const l of legs) {
    console.log(
      `| ${l.name} | ${l.perSecond.toFixed(0)} | ${l.cpuUs.toFixed(0)} | ${l.dbCpuUs.toFixed(0)} | ` +
        `${l.statements.toFixed(1)} | ${l.p50} | ${l.p99} | ${l.failures} |`,
    );
  }
  console.log('');
  for (const line of ratios) console.log(line);
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
    const service = await startProcess(
      'src/main.js',
      {
        ...db.env,
        LOG_LEVEL: 'info',
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_SIGNING_KEY: 'bench-signing-key',
        WEB_CONCURRENCY: process.env.BENCH_WEB_CONCURRENCY ?? '1',
      },
      `${PATH}0`,
      nodeArgs,
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
    const create: autocannon.Options = { url: `${service.url}${PATH}`, method: 'POST', headers, body };
    const pingOptions: autocannon.Options = { url: `${ping.url}/ping` };
    try {
      // Warm-up (JIT, pools), then a pool of sessions to read back.
      await autocannon({ ...create, connections: CONNECTIONS, duration: 2 });
      await autocannon({ ...pingOptions, connections: CONNECTIONS, duration: 2 });
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) {
        const res = await fetch(`${service.url}${PATH}`, { method: 'POST', headers, body });
        if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
        ids.push(((await res.json()) as { session_id: string }).session_id);
      }
      const delivered = () => receiver.received;
      const pidOf = (p: { child: ChildProcess }) => p.child.pid!;
      const legs: Leg[] = [];
      legs.push(await leg('ping 1', pidOf(ping), dbPid, sql, pingOptions));
      const before = delivered();
      await sleep(1000); // the warm-up's webhooks
      legs.push(
        await leg('create + its webhook', pidOf(service), dbPid, sql, create, (created) =>
          receiver.until(before + created),
        ),
      );
      legs.push(await leg('ping 2', pidOf(ping), dbPid, sql, pingOptions));
      legs.push(
        await leg('retrieve', pidOf(service), dbPid, sql, {
          url: service.url,
          requests: [
            {
              method: 'GET',
              setupRequest: (request) => ({
                ...request,
                path: `${PATH}${ids[Math.floor(Math.random() * ids.length)]}/`,
              }),
            },
          ],
        }),
      );
      legs.push(await leg('ping 3', pidOf(ping), dbPid, sql, pingOptions));
      const [ping1, createLeg, ping2, retrieveLeg, ping3] = legs;
      const around = (a: Leg, b: Leg) => (a.cpuUs + b.cpuUs) / 2;
      printTable(legs, [
        `create + webhook: ${(createLeg.cpuUs / around(ping1, ping2)).toFixed(1)}× ping CPU ` +
          `(service + mariadbd: ${((createLeg.cpuUs + createLeg.dbCpuUs) / around(ping1, ping2)).toFixed(1)}×), ` +
          `${createLeg.statements.toFixed(1)} SQL/req`,
        `retrieve: ${(retrieveLeg.cpuUs / around(ping2, ping3)).toFixed(1)}× ping CPU ` +
          `(service + mariadbd: ${((retrieveLeg.cpuUs + retrieveLeg.dbCpuUs) / around(ping2, ping3)).toFixed(1)}×), ` +
          `${retrieveLeg.statements.toFixed(1)} SQL/req`,
      ]);
      if (legs.some((l) => l.failures > 0)) process.exitCode = 1;
    } finally {
      await stopProcess(service.child);
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
