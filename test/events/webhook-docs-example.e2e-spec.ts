import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runInThisContext } from 'node:vm';
import { payloadSignature, standardWebhookSignature } from '../../src/events/webhooks/signature';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';
import { createTransaction, FAST_DELIVERY_ENV, settled, SIGNING_KEY } from './event-helpers';

interface ExampleReceiver {
  url: string;
  handled: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Runs the Node example of docs/webhooks.md as written, on a free port, capturing `handle`. */
async function startDocsExample(key: string): Promise<ExampleReceiver> {
  const markdown = readFileSync(join(process.cwd(), 'docs', 'webhooks.md'), 'utf8');
  const code = markdown.split('```js\n')[1].split('```')[0];
  const handled: Record<string, unknown>[] = [];
  const servers: http.Server[] = [];
  const baseRequire = createRequire(join(process.cwd(), 'package.json'));
  const sandboxRequire = (name: string): unknown => {
    if (name !== 'node:http') return baseRequire(name);
    return {
      ...http,
      createServer: (listener: http.RequestListener) => {
        const server = http.createServer(listener);
        servers.push(server);
        // the example listens on 8080; the test takes any free port on loopback
        return { listen: () => server.listen(0, '127.0.0.1') };
      },
    };
  };
  const run = runInThisContext(`(function (require, process, console) {\n${code}\n})`) as (
    ...args: unknown[]
  ) => void;
  run(sandboxRequire, { env: { CHECKOUT_WEBHOOK_KEY: key } }, { log: (..._: unknown[]) => undefined });
  const server = servers[0];
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  // record every request the example accepted (it answers 204 before calling handle())
  const port = (server.address() as AddressInfo).port;
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    res.on('finish', () => {
      if (res.statusCode === 204) handled.push(JSON.parse(raw) as Record<string, unknown>);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    handled,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the Node example in docs/webhooks.md', () => {
  let t: TestApp;
  let s: Seeded;
  let example: ExampleReceiver;
  before(async () => {
    t = await startApp({ env: FAST_DELIVERY_ENV });
    s = await seedBasics(t);
    example = await startDocsExample(SIGNING_KEY);
  });
  after(async () => {
    await example.close();
    await t.close();
  });

  it('accepts a real delivery: both signatures verify', async () => {
    const sessionId = await createTransaction(t, s, {
      webhook_url: example.url,
      order_no: 'DOC-1',
      customer_first_name: 'example-customer',
      customer_email: 'c@example.com',
    });
    const [event] = await settled(t, sessionId);
    assert.equal(event.deliveries[0].status, 'delivered');
    assert.equal(event.deliveries[0].last_status_code, 204);
    assert.equal(example.handled.length, 1);
    assert.equal(example.handled[0].session_id, sessionId);
  });

  it('rejects a body whose own signature is wrong, and headers that do not match the body', async () => {
    const post = (body: string, signature: string) =>
      fetch(example.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'evt-1',
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
        },
        body,
      });
    const timestamp = Math.floor(Date.now() / 1000);
    const payload = { event: 'paid', state: 'paid', amount: '86.000', currency_code: 'KWD', session_id: 'x' };
    const good = JSON.stringify({ ...payload, signature: payloadSignature(payload, SIGNING_KEY) });
    const forged = JSON.stringify({
      ...payload,
      amount: '1.000',
      signature: payloadSignature(payload, SIGNING_KEY),
    });
    const headerFor = (body: string) => standardWebhookSignature('evt-1', timestamp, body, SIGNING_KEY);
    assert.equal((await post(good, headerFor(good))).status, 204);
    // Standard Webhooks headers valid for the body, but the body's own signature does not match
    assert.equal((await post(forged, headerFor(forged))).status, 400);
    // body signature fine, Standard Webhooks signature made for another body
    assert.equal((await post(good, headerFor(forged))).status, 400);
  });
});
