import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonLines, RunningService, startService } from '../ops/service-process';
import { ADMIN } from '../setup/test-app';
import { GaleraCluster, nodeUrl } from './galera';

/** The cluster `npm run test:cluster` started (its data directory comes in GALERA_DIR). */
export const cluster = new GaleraCluster({ baseDir: process.env.GALERA_DIR });

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
  ms: number;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** One HTTP call; never throws for an HTTP status (a refused connection is status 0). */
export async function call(
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = Date.now();
  try {
    const res = await fetch(url, {
      method,
      headers: { 'Content-Type': 'application/json', ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { text };
    }
    return { status: res.status, body, headers: res.headers, ms: Date.now() - started, at: Date.now() };
  } catch (error) {
    const at = Date.now();
    return { status: 0, body: { error: String(error) }, headers: new Headers(), ms: at - started, at };
  }
}

/** Runs `tasks` with at most `parallel` at a time; the results in task order. */
export async function inParallel<T>(
  count: number,
  parallel: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** A new, empty database on the cluster (created through node 0, replicated to all). */
export async function freshDatabase(): Promise<string> {
  const name = `checkout_c_${process.pid}_${randomBytes(3).toString('hex')}`;
  await cluster.query(0, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  return name;
}

export async function dropDatabase(name: string): Promise<void> {
  for (let node = 0; node < 3; node++) {
    try {
      await cluster.query(node, `DROP DATABASE IF EXISTS \`${name}\``);
      return;
    } catch {
      // that node is down: try the next
    }
  }
}

/** Rows of a query on the cluster, through the first node that answers. */
export async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  let last: unknown;
  for (let node = 0; node < 3; node++) {
    try {
      return (await cluster.query(node, sql, params)) as T[];
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

/** A service replica (the built `dist/src/main.js`) on the given nodes of the cluster. */
export function startReplica(
  nodes: number[],
  database: string,
  env: Record<string, string> = {},
): Promise<RunningService> {
  return startService({
    DATABASE_URL: nodeUrl(nodes, database),
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    DISPATCH_INTERVAL_MS: '200',
    ...env,
  });
}

/**
 * Starts replicas at once (as a deployment does), each `[nodes, env]`. If any fails to start, the
 * ones that did are stopped — a running child would keep the test file alive until its timeout —
 * and every failure is thrown.
 */
export async function startReplicas(
  database: string,
  ...replicas: Array<[nodes: number[], env?: Record<string, string>]>
): Promise<RunningService[]> {
  const started = await Promise.allSettled(
    replicas.map(([nodes, env]) => startReplica(nodes, database, env)),
  );
  const failures = started.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  if (failures.length) {
    for (const r of started) if (r.status === 'fulfilled') await stopReplica(r.value);
    throw new Error(
      `${failures.length} of ${replicas.length} replicas failed to start:\n${failures.join('\n')}`,
    );
  }
  return started.map((r) => (r as PromiseFulfilledResult<RunningService>).value);
}

export async function stopReplica(replica: RunningService | undefined): Promise<void> {
  if (!replica) return;
  replica.kill();
  await replica.exited.catch(() => undefined);
}

const adminHeader = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

/** One admin API call (contract §8) through a replica, as the ADMIN user; `path` after `admin/`. */
export function adminCall(
  replica: RunningService,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  return call(method, `${replica.url}/b/checkout/v1/admin/${path}`, {
    body,
    headers: { Authorization: adminHeader },
  });
}

/** KWD and USD, a `sandbox` gateway and an API key, through the admin API; the `Authorization` value. */
export async function seedThrough(replica: RunningService): Promise<string> {
  const admin = (path: string, body: unknown) =>
    call('POST', `${replica.url}/b/checkout/v1/admin/${path}`, {
      body,
      headers: { Authorization: adminHeader },
    });
  for (const code of ['KWD', 'USD']) {
    const res = await admin('currencies/', { code });
    if (res.status !== 201) throw new Error(`currency ${code}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const gateway = await admin('gateways/', {
    code: 'sandbox',
    name: 'Sandbox card',
    pg: 'sandbox',
    type: 'sandbox',
    currencies: ['KWD', 'USD'],
  });
  if (gateway.status !== 201) throw new Error(`gateway: ${gateway.status} ${JSON.stringify(gateway.body)}`);
  const key = await admin('api-keys/', { name: 'cluster tests' });
  if (key.status !== 201) throw new Error(`api key: ${key.status} ${JSON.stringify(key.body)}`);
  return `Api-Key ${String(key.body.key)}`;
}

export const TX_PATH = '/b/checkout/v1/pymt-txn/';
export const payPath = (sessionId: string): string =>
  `/b/checkout/v1/test-helpers/pymt-txn/${sessionId}/pay/`;
export const SUCCESS_CARD = '4111 1111 1111 1111';

export function txBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'e_commerce', amount: '86.000', currency_code: 'KWD', pg_codes: ['sandbox'], ...overrides };
}

/** What went wrong, for an assertion message: the distinct unexpected answers with a count each. */
export function summarize(answers: Answer[], expected: (a: Answer) => boolean): string {
  const bad = new Map<string, number>();
  for (const a of answers.filter((x) => !expected(x))) {
    const key = `${a.status} ${JSON.stringify(a.body).slice(0, 200)}`;
    bad.set(key, (bad.get(key) ?? 0) + 1);
  }
  return [...bad.entries()].map(([k, n]) => `${n}× ${k}`).join('\n');
}

const UNAVAILABLE = '{"detail":"Service temporarily unavailable."}';

/** Creates then retrieves, continuously, through one replica; every answer with its time. */
export function steadyLoad(replica: RunningService, auth: string): { stop: () => Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const worker = async () => {
    while (running) {
      const created = await call('POST', `${replica.url}${TX_PATH}`, {
        body: txBody(),
        headers: { Authorization: auth },
      });
      answers.push(created);
      if (created.status === 201) {
        answers.push(await call('GET', `${replica.url}${TX_PATH}${String(created.body.session_id)}/`));
      }
      await sleep(25);
    }
  };
  const workers = Promise.all([worker(), worker(), worker()]);
  return {
    stop: async () => {
      running = false;
      await workers;
      return answers;
    },
  };
}

/** The replica's warning and error log lines (why it answered 503), for a failure's message. */
export const warnings = (replica: RunningService): string =>
  jsonLines(replica.output.stdout)
    .filter((line) => Number(line.level) >= 40 && line.msg !== 'request completed')
    .map((line) => JSON.stringify(line).slice(0, 600))
    .slice(0, 10)
    .join('\n');

export const succeeded = (a: Answer): boolean => a.status === 201 || a.status === 200;

/** contract §17: success, or 503 with its body and Retry-After — within `limitMs`. */
export const answeredWithin =
  (limitMs: number) =>
  (a: Answer): boolean =>
    a.ms <= limitMs &&
    (succeeded(a) ||
      (a.status === 503 && JSON.stringify(a.body) === UNAVAILABLE && a.headers.get('retry-after') === '1'));

/** Polls `check` every 200 ms until it holds; how long that took (fails past `timeoutMs`). */
export async function waitFor(
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean>,
): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    assert.ok(Date.now() - started < timeoutMs, `timed out waiting for ${what}`);
    await sleep(200);
  }
  return Date.now() - started;
}
