/**
 * Admin transaction search benchmark (contract §18): fills a fresh MySQL database with N
 * transactions (default 1 000 000: a year of created_at, every state, 20 000 customers), then
 * times each kind of search the admin API runs — first page, a page 200 pages deep (by cursor),
 * by state, by customer e-mail, by order_no, by a day's range — with the search indexes, and
 * again without them to show what they are for.
 *
 *   npm run bench:search
 *   BENCH_ROWS=200000 BENCH_MYSQL_URL=mysql://root@127.0.0.1:3306/ npm run bench:search
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import { createConnection } from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/config/app-config';
import { CurrenciesService } from '../src/currencies/currencies.service';
import { bulkInsert } from '../src/database/bulk-insert';
import { GatewaysService } from '../src/gateways/gateways.service';
import { Transaction } from '../src/transactions/transaction.entity';
import { TRANSACTION_STATES } from '../src/transactions/transaction-state';
import { type SearchInput, TransactionSearchService } from '../src/transactions/transaction-search.service';
import { dueTransactionRow } from '../test/factories/due-transactions';
import { gatewayInput } from '../test/setup/fixtures';

const serverUrl = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const CUSTOMERS = 20_000;
const YEAR_MS = 365 * 86_400_000;
const RUNS = 15;
const SEARCH_INDEXES = [
  'idx_transactions_created_at',
  'idx_transactions_state_created_at',
  'idx_transactions_customer_email_created_at',
];

async function fill(ds: DataSource, count: number, end: number): Promise<void> {
  const chunk = 1000;
  for (let done = 0; done < count; done += chunk) {
    const batch = Array.from({ length: Math.min(chunk, count - done) }, (_, i) => {
      const n = done + i;
      const createdAt = new Date(end - Math.floor(Math.random() * YEAR_MS));
      return Object.assign(dueTransactionRow(new Date(createdAt.getTime() + 3_600_000)), {
        createdAt,
        updatedAt: createdAt,
        state: TRANSACTION_STATES[n % TRANSACTION_STATES.length],
        customerEmail: `customer-${n % CUSTOMERS}@example.com`,
        orderNo: `ORDER-${n}`,
      });
    });
    await bulkInsert(ds.manager, Transaction, batch);
    if ((done / chunk) % 100 === 0) process.stdout.write(`\r  inserted ${done + batch.length}`);
  }
  process.stdout.write('\n');
}

/** Median milliseconds of `RUNS` runs of `run`. */
async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)] * 100) / 100;
}

async function main(): Promise<void> {
  const name = `checkout_bench_search_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = await createConnection({ uri: serverUrl });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    LOG_LEVEL: 'silent',
    EXPIRY_SWEEP_SECONDS: '86400',
    ADMIN_USERNAME: 'admin',
    ADMIN_PASSWORD: 'bench-password-1',
  });
  const { app } = await createApp(config);
  await app.init();
  try {
    const ds = app.get<DataSource>(getDataSourceToken());
    await app.get(CurrenciesService).create('KWD');
    await app.get(GatewaysService).create(gatewayInput());
    const end = Date.now();
    console.log(`Filling ${rows} transactions…`);
    const started = process.hrtime.bigint();
    await fill(ds, rows, end);
    console.log(`  ${Math.round(Number(process.hrtime.bigint() - started) / 1e9)} s`);
    await ds.query('ANALYZE TABLE transactions');

    const search = app.get(TransactionSearchService);
    const page = (input: Partial<SearchInput>) =>
      search.search({ filter: {}, limit: 20, ...input }, 'invalid cursor');
    // A cursor 200 pages down, found once by paging.
    let cursor: string | undefined;
    for (let i = 0; i < 200; i++) cursor = (await page({ cursor })).next ?? undefined;
    const day = new Date(end - 100 * 86_400_000);
    const cases: [string, () => Promise<unknown>][] = [
      ['first page (20 newest)', () => page({})],
      ['page 201 (by cursor)', () => page({ cursor })],
      ['state = paid', () => page({ filter: { state: 'paid' } })],
      ['customer_email', () => page({ filter: { customerEmail: 'customer-4242@example.com' } })],
      ['order_no', () => page({ filter: { orderNo: `ORDER-${Math.floor(rows / 2)}` } })],
      [
        'one day, state = expired',
        () =>
          page({
            filter: {
              state: 'expired',
              createdFrom: day,
              createdBefore: new Date(day.getTime() + 86_400_000),
            },
          }),
      ],
    ];
    const withIndexes: number[] = [];
    for (const [, run] of cases) withIndexes.push(await median(run));
    for (const index of SEARCH_INDEXES) await ds.query(`DROP INDEX ${index} ON transactions`);
    const without: number[] = [];
    for (const [, run] of cases) without.push(await median(run));

    console.log(
      `\nAdmin search on ${rows} transactions, median of ${RUNS} runs (ms per page of 20, service + MySQL):`,
    );
    console.log('| search | with the search indexes | without |');
    console.log('|---|---|---|');
    cases.forEach(([label], i) => console.log(`| ${label} | ${withIndexes[i]} | ${without[i]} |`));
  } finally {
    await app.close();
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.end();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
