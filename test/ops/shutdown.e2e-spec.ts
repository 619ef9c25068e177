import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { transactionBody } from '../factories/transaction.factory';
import { seedBasics } from '../setup/fixtures';
import { ADMIN, startApp } from '../setup/test-app';
import { createTestDatabase, TestDatabase } from '../setup/test-database';
import { RunningService, startService } from './service-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('graceful shutdown', () => {
  let db: TestDatabase;
  let apiKey: string;
  let service: RunningService;
  before(async () => {
    // Seed through the services of an in-process app on the same database, then start the built one.
    db = await createTestDatabase();
    const seeder = await startApp({ db });
    apiKey = (await seedBasics(seeder)).apiKey;
    await seeder.close();
    service = await startService({
      ...db.env,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
    });
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
