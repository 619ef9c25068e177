/**
 * Expiry sweep benchmark: inserts N due transactions set-based into a fresh MySQL
 * database, runs ExpiryService.sweep() until all are expired, and reports rows per second and the
 * process's peak memory. Runs at several sizes (default 25 000, 50 000, 100 000) to show that
 * memory stays flat as the count grows.
 *
 *   npm run bench:expiry
 *   BENCH_SIZES=100000 BENCH_BATCH=500 BENCH_MYSQL_URL=mysql://root@127.0.0.1:3306/ npm run bench:expiry
 *   BENCH_LIVE_HEAP_MS=1000 npm run bench:expiry   # also force a GC each second: the live heap
 *   BENCH_MAX_OLD_SPACE_MB=64 npm run bench:expiry  # cap V8's old space: a leak would end in OOM
 *   BENCH_PER_ROW=1 BENCH_SIZES=5000 npm run bench:expiry  # baseline: one transition per row
 *   BENCH_REPLICAS=2 BENCH_SIZES=100000 npm run bench:expiry  # two processes sweep the same rows
 */
import 'reflect-metadata';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { loadConfig } from '../src/config/app-config';
import { CurrenciesService } from '../src/currencies/currencies.service';
import { EXPIRY_BATCH_SIZE, ExpiryService } from '../src/expiry/expiry.service';
import { GatewaysService } from '../src/gateways/gateways.service';
import { UnitOfWork } from '../src/database/unit-of-work';
import { Transaction } from '../src/transactions/transaction.entity';
import { TransitionService } from '../src/transactions/transition.service';
import { insertDueTransactions } from '../test/factories/due-transactions';
import { gatewayInput } from '../test/setup/fixtures';

const serverUrl = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const sizes = (process.env.BENCH_SIZES ?? '25000,50000,100000').split(',').map((n) => Number(n.trim()));
const batchSize = Number(process.env.BENCH_BATCH ?? EXPIRY_BATCH_SIZE);
/** With a value (ms), also forces a GC that often during the sweep and reports the largest live heap. */
const liveHeapEveryMs = Number(process.env.BENCH_LIVE_HEAP_MS ?? 0);
/**
 * `BENCH_PER_ROW=1`: for comparison, expires the same rows one at a time through
 * TransitionService.expireIfDueIn, each in a unit of its own (the pay path's way: one DB transaction
 * and ~6 statements per row).
 */
const perRow = process.env.BENCH_PER_ROW === '1';
/** With a value (MB), runs each size with V8's old space capped there: a leak would end in OOM. */
const maxOldSpaceMb = Number(process.env.BENCH_MAX_OLD_SPACE_MB ?? 0);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

interface RunResult {
  rows: number;
  insertSeconds: number;
  sweepSeconds: number;
  rowsPerSecond: number;
  batches: number;
  baselineRssMb: number;
  peakRssMb: number;
  baselineHeapMb: number;
  peakHeapMb: number;
  /** Heap still in use after a GC once the sweep is done (what the sweep kept). */
  heapAfterGcMb: number;
  /** Largest heap after a forced GC during the sweep (BENCH_LIVE_HEAP_MS only). */
  maxLiveHeapMb: number | null;
}

async function withDatabase<T>(run: (url: string) => Promise<T>): Promise<T> {
  const name = `checkout_bench_expiry_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = await createConnection({ uri: serverUrl });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return await run(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}

/** The real application on `databaseUrl` (migrations applied), not listening. */
async function bootApp(databaseUrl: string) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    EXPIRY_SWEEP_SECONDS: '86400', // the job stays out of the way: the bench calls sweep()
    ADMIN_USERNAME: 'admin',
    ADMIN_PASSWORD: 'bench-password-1',
  });
  const { app } = await createApp(config);
  await app.init();
  return app;
}

async function runOnce(rows: number): Promise<RunResult> {
  return withDatabase(async (databaseUrl) => {
    const app = await bootApp(databaseUrl);
    try {
      const ds = app.get<DataSource>(getDataSourceToken());
      await app.get(CurrenciesService).create('KWD');
      await app.get(GatewaysService).create(gatewayInput());

      // Each expired event gets one delivery row (an e-mail, kept as skipped: no SMTP here). The rows
      // are inserted by a child process, so its memory does not count as the sweep's.
      let started = process.hrtime.bigint();
      await insertInChild(databaseUrl, rows);
      const insertSeconds = Number(process.hrtime.bigint() - started) / 1e9;

      gc();
      const baseline = process.memoryUsage();
      let peakRss = baseline.rss;
      let peakHeap = baseline.heapUsed;
      const sample = () => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      };
      const sampler = setInterval(sample, 25);
      let maxLive: number | null = null;
      const liveTimer =
        liveHeapEveryMs > 0
          ? setInterval(() => {
              gc();
              maxLive = Math.max(maxLive ?? 0, process.memoryUsage().heapUsed);
            }, liveHeapEveryMs)
          : null;
      started = process.hrtime.bigint();
      const result = perRow
        ? await expirePerRow(app.get(TransitionService), app.get(UnitOfWork), ds)
        : await app.get(ExpiryService).sweep({ batchSize });
      const sweepSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      clearInterval(sampler);
      if (liveTimer) clearInterval(liveTimer);
      sample();
      gc();
      const afterGc = process.memoryUsage().heapUsed;

      const [left] = await ds.query<{ n: string }[]>(
        `SELECT COUNT(*) AS n FROM transactions WHERE state <> 'expired'`,
      );
      const [events] = await ds.query<{ n: string }[]>(
        `SELECT COUNT(*) AS n FROM events WHERE event = 'expired'`,
      );
      if (Number(left.n) !== 0 || Number(events.n) !== rows || result.expired !== rows) {
        throw new Error(
          `Sweep incomplete: ${result.expired} expired, ${left.n} left, ${events.n} expired events`,
        );
      }
      return {
        rows,
        insertSeconds: Math.round(insertSeconds * 10) / 10,
        sweepSeconds: Math.round(sweepSeconds * 100) / 100,
        rowsPerSecond: Math.round(rows / sweepSeconds),
        batches: result.batches,
        baselineRssMb: mb(baseline.rss),
        peakRssMb: mb(peakRss),
        baselineHeapMb: mb(baseline.heapUsed),
        peakHeapMb: mb(peakHeap),
        heapAfterGcMb: mb(afterGc),
        maxLiveHeapMb: maxLive === null ? null : mb(maxLive),
      };
    } finally {
      await app.close();
    }
  });
}

/** Runs the INSERTs in a child process (this same file, `insert` mode). */
function insertInChild(databaseUrl: string, rows: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['insert', databaseUrl, String(rows)], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`insert child exited with ${code}`)),
    );
  });
}

/** The per-row baseline: due ids read page by page, each expired in its own DB transaction. */
async function expirePerRow(
  transitions: TransitionService,
  uow: UnitOfWork,
  ds: DataSource,
): Promise<{ expired: number; batches: number }> {
  const now = new Date();
  let expired = 0;
  let batches = 0;
  for (;;) {
    const ids = await ds.query<{ session_id: string }[]>(
      `SELECT session_id FROM transactions WHERE state = 'created' AND expires_at <= ? LIMIT 500`,
      [now],
    );
    if (ids.length === 0) return { expired, batches };
    batches++;
    for (const { session_id } of ids) {
      const tx = await ds.getRepository(Transaction).findOneBy({ sessionId: session_id });
      if (tx && (await uow.run((manager) => transitions.expireIfDueIn(manager, tx, now)))) expired++;
    }
  }
}

/** `runOnce(rows)` in a child process (this same file, `run` mode); its result comes back by IPC. */
function runInChild(rows: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['run', String(rows)], {
      stdio: 'inherit',
      execArgv: maxOldSpaceMb > 0 ? [`--max-old-space-size=${maxOldSpaceMb}`] : [],
    });
    let result: RunResult | null = null;
    child.on('message', (message) => (result = message as RunResult));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 && result ? resolve(result) : reject(new Error(`run child exited with ${code}`)),
    );
  });
}

async function runMode(rows: number): Promise<void> {
  const result = await runOnce(rows);
  await new Promise<void>((resolve, reject) =>
    process.send!(result, (error: Error | null) => (error ? reject(error) : resolve())),
  );
  process.disconnect();
}

async function insertMode(databaseUrl: string, rows: number): Promise<void> {
  const ds = await new DataSource(
    buildDataSourceOptions(loadConfig({ DATABASE_URL: databaseUrl }).database),
  ).initialize();
  try {
    await insertDueTransactions(ds, rows, {
      chunk: 1000,
      overrides: { customerEmail: 'customer@example.com', notifications: { email: ['expired'] } },
    });
  } finally {
    await ds.destroy();
  }
}

interface SweeperResult {
  expired: number;
  seconds: number;
  peakRssMb: number;
}

/**
 * `BENCH_REPLICAS=n`: n processes, each running the application on the same database, sweep the
 * same due rows at once (as replicas would). Checks that every row was expired exactly once.
 */
async function runReplicas(rows: number, replicas: number): Promise<void> {
  await withDatabase(async (databaseUrl) => {
    const setup = await bootApp(databaseUrl);
    await setup.get(CurrenciesService).create('KWD');
    await setup.get(GatewaysService).create(gatewayInput());
    await setup.close();
    await insertInChild(databaseUrl, rows);
    const children = Array.from({ length: replicas }, () =>
      fork(__filename, ['sweeper', databaseUrl], { stdio: 'inherit' }),
    );
    const ready = children.map((c) => new Promise<void>((resolve) => c.once('message', () => resolve())));
    await Promise.all(ready);
    const started = process.hrtime.bigint();
    const results = await Promise.all(
      children.map(
        (c) =>
          new Promise<SweeperResult>((resolve, reject) => {
            c.once('message', (m) => resolve(m as SweeperResult));
            c.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`sweeper exited ${code}`))));
            c.send('go');
          }),
      ),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const check = await createConnection({ uri: databaseUrl });
    const [[left], [events], [doubled]] = await Promise.all([
      check.query(`SELECT COUNT(*) AS n FROM transactions WHERE state <> 'expired'`),
      check.query(`SELECT COUNT(*) AS n FROM events WHERE event = 'expired'`),
      check.query(
        `SELECT COUNT(*) AS n FROM (SELECT transaction_id FROM events WHERE event = 'expired' GROUP BY transaction_id HAVING COUNT(*) > 1) d`,
      ),
    ] as unknown as Promise<[{ n: string }[]]>[]);
    await check.end();
    const total = results.reduce((sum, r) => sum + r.expired, 0);
    console.log(
      `${rows} rows, ${replicas} replicas: all expired in ${Math.round(seconds * 100) / 100} s ` +
        `(${Math.round(rows / seconds)} rows/s); per replica ${results.map((r) => `${r.expired} in ${r.seconds} s, peak RSS ${r.peakRssMb} MB`).join('; ')}; ` +
        `left ${left[0].n}, expired events ${events[0].n}, transactions with 2+ expired events ${doubled[0].n}, sum ${total}`,
    );
    if (
      Number(left[0].n) !== 0 ||
      Number(events[0].n) !== rows ||
      Number(doubled[0].n) !== 0 ||
      total !== rows
    ) {
      throw new Error('Replicas did not expire every row exactly once');
    }
  });
}

/** One replica: boots the app, says ready, sweeps on `go`, reports, exits. */
async function sweeperMode(databaseUrl: string): Promise<void> {
  const app = await bootApp(databaseUrl);
  try {
    await new Promise<void>((resolve) => {
      process.once('message', () => resolve());
      process.send!('ready');
    });
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);
    const started = process.hrtime.bigint();
    const result = await app.get(ExpiryService).sweep({ batchSize });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    const report: SweeperResult = {
      expired: result.expired,
      seconds: Math.round(seconds * 100) / 100,
      peakRssMb: mb(peakRss),
    };
    await new Promise<void>((resolve, reject) =>
      process.send!(report, (error: Error | null) => (error ? reject(error) : resolve())),
    );
  } finally {
    await app.close();
    process.disconnect();
  }
}

async function main(): Promise<void> {
  const replicas = Number(process.env.BENCH_REPLICAS ?? 1);
  if (replicas > 1) {
    for (const rows of sizes) await runReplicas(rows, replicas);
    return;
  }
  console.log(
    `Expiry sweep benchmark: MySQL ${serverUrl}, batch ${batchSize}, sizes ${sizes.join(', ')}` +
      (liveHeapEveryMs > 0 ? `, forced GC every ${liveHeapEveryMs} ms` : '') +
      (maxOldSpaceMb > 0 ? `, old space capped at ${maxOldSpaceMb} MB` : '') +
      (perRow ? ', PER ROW (baseline, not the job)' : ''),
  );
  const results: RunResult[] = [];
  for (const rows of sizes) {
    // Each size in a fresh process, so one run's memory does not carry into the next.
    const r = await runInChild(rows);
    results.push(r);
    console.log(
      `${r.rows} rows: swept in ${r.sweepSeconds} s (${r.rowsPerSecond} rows/s, ${r.batches} batches); ` +
        `RSS ${r.baselineRssMb} -> peak ${r.peakRssMb} MB, heap ${r.baselineHeapMb} -> peak ${r.peakHeapMb} MB ` +
        `, after GC ${r.heapAfterGcMb} MB${r.maxLiveHeapMb === null ? '' : `, max live ${r.maxLiveHeapMb} MB`} ` +
        `(insert took ${r.insertSeconds} s)`,
    );
  }
  console.log(
    '\n| due rows | sweep s | rows/s | batches | RSS base → peak MB | heap base → peak MB | heap after GC MB | max live heap MB |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.rows} | ${r.sweepSeconds} | ${r.rowsPerSecond} | ${r.batches} | ${r.baselineRssMb} → ${r.peakRssMb} | ${r.baselineHeapMb} → ${r.peakHeapMb} | ${r.heapAfterGcMb} | ${r.maxLiveHeapMb ?? '—'} |`,
    );
  }
  console.log(`\nJSON ${JSON.stringify(results)}`);
}

const [mode, ...args] = process.argv.slice(2);
const job =
  mode === 'insert'
    ? insertMode(args[0], Number(args[1]))
    : mode === 'sweeper'
      ? sweeperMode(args[0])
      : mode === 'run'
        ? runMode(Number(args[0]))
        : main();
job.catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
