// test-bundle: quiet — a burst of creates must be answered within the pool's acquire timeout: test processes beside it take the CPU it measures (docs/testing.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, type QueryRunner } from 'typeorm';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { eventually } from '../events/event-helpers';
import { CREATE_PATH } from '../factories/transaction-states';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { testDbKind } from '../setup/test-database';
import { HttpReceiver } from '../sinks/http-receiver';

/** A create as merchants send it: webhook and notifications make the outbox read reference data. */
const body = (hook: HttpReceiver) =>
  transactionBody({
    webhook_url: hook.url,
    customer_email: 'customer@example.com',
    notifications: { email: ['created', 'paid'] },
  });

describe('the connection pool never hangs (contract §17)', () => {
  let t: TestApp;
  let s: Seeded;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start();
    t = await startApp({
      env: { DB_POOL_SIZE: '3', DB_ACQUIRE_TIMEOUT_MS: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    await hook.stop();
  });

  it('answers a burst of creates after an idle spell (reference-data caches expired) with 201s', async () => {
    const create = () => t.http().post(CREATE_PATH).set('Authorization', s.apiKey).send(body(hook));
    assert.equal((await create()).status, 201);
    await sleep(5500); // the 5 s reference-data caches run out: the next creates load them again
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 40 }, create));
    const statuses = answers.map((a) => a.status);
    assert.deepEqual(
      statuses.filter((status) => status !== 201),
      [],
      JSON.stringify(answers.find((a) => a.status !== 201)?.body),
    );
    assert.ok(Date.now() - started < 20_000, 'answered promptly');
    await t.http().get('/health/ready').expect(200);
  });

  it('answers 503 with Retry-After when no connection frees up in time, readiness says so, and it recovers', async () => {
    const created = await t
      .http()
      .post(CREATE_PATH)
      .set('Authorization', s.apiKey)
      .send(body(hook))
      .expect(201);
    const retrieve = `${CREATE_PATH}${String(created.body.session_id)}/`;
    const release = await occupyTheDatabase(t);
    try {
      const started = Date.now();
      const res = await t.http().get(retrieve);
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.deepEqual(res.body, { detail: 'Service temporarily unavailable.' });
      assert.equal(res.headers['retry-after'], '1');
      assert.ok(
        Date.now() - started < 3000,
        `answered within the acquire timeout (${Date.now() - started} ms)`,
      );
      const ready = await t.http().get('/health/ready');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, { detail: 'Service temporarily unavailable.' });
      await t.http().get('/health').expect(200); // liveness is about the process only
    } finally {
      await release();
    }
    await t.http().get(retrieve).expect(200);
    await eventually(
      async () => ((await t.http().get('/health/ready')).status === 200 ? true : undefined),
      10_000,
      'readiness to recover',
    );
  });
});

/**
 * Makes every database turn busy, as a burst of slow requests would: on MySQL it takes all the
 * pool's connections; on the embedded database it holds the gate with a long unit of work.
 */
async function occupyTheDatabase(t: TestApp): Promise<() => Promise<void>> {
  if (testDbKind() === 'mysql') {
    const runners: QueryRunner[] = [];
    for (let i = 0; i < 3; i++) {
      const runner = t.app.get(DataSource).createQueryRunner();
      await runner.connect();
      runners.push(runner);
    }
    return async () => {
      for (const runner of runners) await runner.release();
    };
  }
  let finish!: () => void;
  const holding = t.app.get(UnitOfWork).run(() => new Promise<void>((resolve) => (finish = resolve)));
  await sleep(50);
  return async () => {
    finish();
    await holding;
  };
}
