import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { startApp } from '../setup/test-app';
import { TestDatabase } from '../setup/test-database';
import { HttpReceiver } from '../sinks/http-receiver';
import { startSeededService } from './seeded-service';
import { RunningService, waitUntil } from './service-process';
import { DataSource } from 'typeorm';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('graceful shutdown', () => {
  let db: TestDatabase;
  let apiKey: string;
  let service: RunningService;
  before(async () => {
    ({ db, apiKey, service } = await startSeededService());
  });
  after(async () => {
    service?.kill();
    await service?.exited.catch(() => undefined);
    await db?.drop();
  });

  it('on SIGTERM finishes the request in flight, refuses new connections, then exits 0', async () => {
    const body = Buffer.from(JSON.stringify(transactionBody({ order_no: 'shutdown-in-flight' })));
    const half = Math.floor(body.length / 2);
    const url = new URL('/b/checkout/v1/pymt-txn/', service.url);
    const req = request(url, {
      method: 'POST',
      headers: {
        Authorization: apiKey,
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        // The server answers "100 Continue" once it has read the headers: proof that the request
        // reached the service (not just the kernel's accept queue) before the SIGTERM.
        Expect: '100-continue',
      },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    await new Promise((resolve) => req.once('continue', resolve));
    req.write(body.subarray(0, half)); // the request is now in flight: headers and half the body sent
    await sleep(200);

    service.child.kill('SIGTERM');
    await sleep(500);
    assert.equal(service.child.exitCode, null, 'the process waits for the request in flight');
    await assert.rejects(fetch(`${service.url}/health`), 'a new connection is refused while shutting down');

    req.end(body.subarray(half));
    const res = await response;
    assert.equal(res.status, 201, res.text);
    assert.equal((JSON.parse(res.text) as { order_no: string }).order_no, 'shutdown-in-flight');

    const exit = await service.exited;
    assert.equal(exit.code, 0, exit.stderr);
    assert.equal(exit.signal, null);
  });
});

describe('shutdown while requests and deliveries hang (contract §17)', () => {
  let db: TestDatabase;
  let apiKey: string;
  let service: RunningService;
  let hook: HttpReceiver;
  before(async () => {
    hook = await HttpReceiver.start(() => 'hang');
    ({ db, apiKey, service } = await startSeededService({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      DISPATCH_INTERVAL_MS: '100',
    }));
  });
  after(async () => {
    service?.kill();
    await service?.exited.catch(() => undefined);
    await hook?.stop();
    await db?.drop();
  });

  it('exits 0 within 10 s, cutting a request that never ends and interrupting a webhook that hangs', async () => {
    const created = await fetch(`${service.url}/b/checkout/v1/pymt-txn/`, {
      method: 'POST',
      headers: { Authorization: apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(transactionBody({ webhook_url: hook.url })),
    });
    assert.equal(created.status, 201);
    await waitUntil(() => hook.received.length > 0, 'the webhook to reach the hanging receiver');

    // A client that sends its headers and never its body.
    const stuck = request(new URL('/b/checkout/v1/pymt-txn/', service.url), {
      method: 'POST',
      headers: { Authorization: apiKey, 'Content-Type': 'application/json', 'Content-Length': '1000' },
    });
    const cut = new Promise<string>((resolve) => {
      stuck.on('error', (error) => resolve(error.message));
      stuck.on('response', (res) => resolve(`answered ${res.statusCode}`));
    });
    stuck.flushHeaders();
    stuck.write('{"type": ');
    await sleep(300);

    const signalled = Date.now();
    service.child.kill('SIGTERM');
    const exit = await service.exited;
    const took = Date.now() - signalled;
    assert.equal(exit.code, 0, exit.stderr);
    assert.ok(took < 10_000, `exited after ${took} ms`);
    assert.match(await cut, /socket hang up|ECONNRESET/);

    // The interrupted delivery is logged and waits for a retry by any replica.
    const seeder = await startApp({ db, env: { DISPATCH_INTERVAL_MS: '3600000' } });
    try {
      const [delivery] = await seeder.app
        .get(DataSource)
        .query<{ status: string; attempts: number; last_error: string }[]>(
          'SELECT status, attempts, last_error FROM deliveries',
        );
      assert.deepEqual(
        { ...delivery, attempts: Number(delivery.attempts) },
        { status: 'pending', attempts: 1, last_error: 'Interrupted: the service is shutting down' },
      );
    } finally {
      await seeder.app.close();
    }
  });
});
