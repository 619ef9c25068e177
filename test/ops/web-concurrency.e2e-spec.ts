// test-bundle: quiet — it bounds how long the service takes to exit when its workers cannot start, from its start (docs/testing.md).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { TestDatabase, testDbKind } from '../setup/test-database';
import { startSeededService } from './seeded-service';
import { jsonLines, RunningService, runServiceToExit, waitUntil } from './service-process';

/** Pids of the living processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') children.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return children;
}

/** WEB_CONCURRENCY: several worker processes of the service on one machine. */
describe('WEB_CONCURRENCY workers', () => {
  it('refuses a value that is not 1–64, and more than one worker on the embedded database', async () => {
    const bad = await runServiceToExit({ WEB_CONCURRENCY: 'many' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /WEB_CONCURRENCY="many": must be an integer from 1 to 64/);
    const embedded = await runServiceToExit({ WEB_CONCURRENCY: '2' });
    assert.equal(embedded.code, 1);
    assert.match(embedded.stderr, /WEB_CONCURRENCY > 1 needs MySQL/);
  });

  // Several processes need the shared MySQL database (the MySQL leg is mandatory in CI).
  if (testDbKind() !== 'mysql') return;

  describe('on MySQL', () => {
    it('exits (1, within seconds) when its workers cannot start, instead of starting them again forever', async () => {
      const server = new URL(process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test');
      server.username = 'no_such_user';
      server.password = 'wrong-password';
      const started = Date.now();
      const refused = await runServiceToExit(
        { WEB_CONCURRENCY: '2', DATABASE_URL: server.toString() },
        20_000,
      );
      assert.equal(refused.code, 1, refused.stderr);
      assert.ok(Date.now() - started < 15_000, `exited after ${Date.now() - started} ms`);
      assert.match(refused.stdout + refused.stderr, /could not start/);
      assert.ok(!(refused.stdout + refused.stderr).includes('wrong-password'), 'no password in the output');
    });

    let db: TestDatabase;
    let apiKey: string;
    let service: RunningService;
    before(async () => {
      ({ db, apiKey, service } = await startSeededService({ WEB_CONCURRENCY: '2' }));
    });
    after(async () => {
      service?.kill();
      await service?.exited.catch(() => undefined);
      await db?.drop();
    });

    it('serves from two workers on one port, replaces one that dies, and stops all on SIGTERM', async () => {
      const listening = () =>
        jsonLines(service.output.stdout).filter((l) => l.msg === 'Checkout is listening').length;
      await waitUntil(() => listening() === 2, 'both workers listening', 30_000);
      const workers = childrenOf(service.child.pid!);
      assert.equal(workers.length, 2, `workers: ${workers.join(', ')}`);

      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${service.url}/b/checkout/v1/pymt-txn/`, {
            method: 'POST',
            headers: { Authorization: apiKey, 'Content-Type': 'application/json' },
            body: JSON.stringify(transactionBody()),
          }).then((r) => r.status),
        ),
      );
      assert.deepEqual([...new Set(answers)], [201]);

      process.kill(workers[0], 'SIGKILL');
      await waitUntil(() => listening() === 3, 'a replacement worker listening', 30_000);
      const replaced = childrenOf(service.child.pid!);
      assert.equal(replaced.length, 2);
      assert.ok(!replaced.includes(workers[0]));

      const started = Date.now();
      service.child.kill('SIGTERM');
      const result = await service.exited;
      assert.equal(result.code, 0, result.stderr);
      assert.ok(Date.now() - started < 10_000, 'stopped within 10 s');
      for (const pid of replaced) assert.throws(() => process.kill(pid, 0), `worker ${pid} is gone`);
    });
  });
});
