// `npm run bench`: creates/s and retrieves/s (p50/p99 latency) of the BUILT service on a fresh
// MySQL database, at 10 connections, against a bare node:http + mysql2 server doing the same single
// INSERT / SELECT (bench/raw-server.ts). Prints a table and the ratio checkout / raw.
//   MYSQL_URL      server to use (default mysql://root@127.0.0.1:3306/); a fresh database is created and dropped
//   BENCH_SECONDS  length of each measurement (default 10)
//   BENCH_CONNECTIONS  concurrent connections (default 10)
//   BENCH_NODE_ARGS    extra node flags for the service process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
import 'reflect-metadata';
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { resolve } from 'node:path';
import { transactionBody } from '../test/factories/transaction.factory';
import { seedBasics } from '../test/setup/fixtures';
import { ADMIN, freePort, startApp } from '../test/setup/test-app';
import { createMysqlDatabase, TestDatabase } from '../test/setup/test-database';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PATH = '/b/checkout/v1/pymt-txn/';
const BODY = JSON.stringify(transactionBody());

interface Measure {
  perSecond: number;
  /** CPU time of the server process per request: steadier than req/s on a busy machine. */
  cpuMsPerRequest: number;
  p50: number;
  p99: number;
  failures: number;
  /** SQL statements the server received per request (MariaDB's global `Questions` counter). */
  statementsPerRequest: number;
}
interface Row {
  server: string;
  create: Measure;
  retrieve: Measure;
}

/** utime + stime of a process in ms, from /proc (Linux; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
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
    const ok = await fetch(`${url}${PATH}0`).then(
      (r) => r.status === 404,
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

async function measure(pid: number, sql: Connection, options: autocannon.Options): Promise<Measure> {
  const questionsBefore = await questions(sql);
  const cpuBefore = cpuMs(pid);
  const result = await autocannon(options);
  const cpu = cpuMs(pid) - cpuBefore;
  const statements = (await questions(sql)) - questionsBefore - 1;
  return {
    statementsPerRequest: statements / Math.max(1, result.requests.total),
    perSecond: result.requests.average,
    cpuMsPerRequest: cpu / Math.max(1, result.requests.total),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

async function run(server: string, pid: number, url: string, auth: string, sql: Connection): Promise<Row> {
  const headers = { Authorization: auth, 'Content-Type': 'application/json' };
  // Warm-up (JIT, pools), then a pool of sessions to read back.
  await autocannon({
    url: `${url}${PATH}`,
    connections: CONNECTIONS,
    duration: 2,
    method: 'POST',
    headers,
    body: BODY,
  });
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}${PATH}`, { method: 'POST', headers, body: BODY });
    if (res.status !== 201) throw new Error(`${server}: create answered ${res.status}: ${await res.text()}`);
    ids.push(((await res.json()) as { session_id: string }).session_id);
  }
  const create = await measure(pid, sql, {
    url: `${url}${PATH}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    headers,
    body: BODY,
  });
  const retrieve = await measure(pid, sql, {
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
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
  return { server, create, retrieve };
}

function printTable(rows: Row[]): void {
  const cell = (m: Measure) =>
    `${m.perSecond.toFixed(0).padStart(6)} /s  ${m.cpuMsPerRequest.toFixed(2)} ms CPU/req  ${m.statementsPerRequest.toFixed(1)} SQL/req  p50 ${String(m.p50).padStart(3)} ms  p99 ${String(m.p99).padStart(3)} ms${m.failures ? `  (${m.failures} failed)` : ''}`;
  console.log(
    `\n${CONNECTIONS} connections, ${SECONDS} s each, ${cpus().length} CPUs, Node ${process.version}\n`,
  );
  console.log(`| server | create (INSERT) | retrieve (SELECT) |`);
  console.log(`|---|---|---|`);
  for (const row of rows) console.log(`| ${row.server} | ${cell(row.create)} | ${cell(row.retrieve)} |`);
  const [checkout, raw] = rows;
  console.log(
    `\nratio checkout / raw: create ${(checkout.create.perSecond / raw.create.perSecond).toFixed(2)}, ` +
      `retrieve ${(checkout.retrieve.perSecond / raw.retrieve.perSecond).toFixed(2)}; ` +
      `CPU per request checkout / raw: create ${(checkout.create.cpuMsPerRequest / raw.create.cpuMsPerRequest).toFixed(1)}×, ` +
      `retrieve ${(checkout.retrieve.cpuMsPerRequest / raw.retrieve.cpuMsPerRequest).toFixed(1)}×`,
  );
}

async function main(): Promise<void> {
  const db = await createMysqlDatabase(
    process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/',
    'checkout_bench',
  );
  let sql: Connection | undefined;
  try {
    const auth = await seed(db);
    sql = await createConnection(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/');
    const rows: Row[] = [];
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const service = await startProcess(
      'src/main.js',
      { ...db.env, LOG_LEVEL: 'info', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
      nodeArgs,
    );
    try {
      rows.push(await run('checkout (node dist/src/main.js)', service.child.pid!, service.url, auth, sql));
    } finally {
      await stopProcess(service.child);
    }
    const raw = await startProcess('bench/raw-server.js', db.env);
    try {
      rows.push(await run('raw node:http + mysql2', raw.child.pid!, raw.url, auth, sql));
    } finally {
      await stopProcess(raw.child);
    }
    printTable(rows);
    if (rows.some((r) => r.create.failures + r.retrieve.failures > 0)) process.exitCode = 1;
  } finally {
    await sql?.end();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
