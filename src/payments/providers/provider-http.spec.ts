import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ProviderTransportError, sendProviderRequest, type ProviderHttpRequest } from './provider-http';

/** The provider clients' one HTTP exchange: its answer, its limits, and the one error it fails with. */
describe('sendProviderRequest', () => {
  let server: Server;
  let base: string;
  const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];
  /** Accepts connections and never answers the TLS handshake: an https connection never comes up. */
  let silent: TcpServer;
  let silentBase: string;
  const silentSockets: Socket[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url?.startsWith('/silent')) return; // never answers
        if (req.url === '/drop') return void req.socket.destroy(); // received, then no answer
        if (req.url === '/broken') {
          // Half the promised answer, then the connection goes.
          res.writeHead(200, { 'Content-Length': '100' });
          res.write('x'.repeat(50), () => req.socket.destroy());
          return;
        }
        if (req.url === '/big') return res.end('x'.repeat(100));
        res.statusCode = 402;
        res.end('{"result":"ERROR"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    silent = createTcpServer((socket) => void silentSockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentBase = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
    for (const socket of silentSockets) socket.destroy();
    silent.close();
  });

  const request = (path: string, more: Partial<ProviderHttpRequest> = {}): ProviderHttpRequest => ({
    provider: 'ACME',
    operation: 'charge',
    method: 'POST',
    url: new URL(path, base),
    headers: { 'Content-Type': 'text/plain', 'Content-Length': 5 },
    body: 'hello',
    connectTimeoutMs: 1000,
    answerTimeoutMs: 1000,
    maxAnswerBytes: 1024,
    beyondMax: 'fail',
    ...more,
  });
  const failureOf = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => assert.fail('expected a ProviderTransportError'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ProviderTransportError);
    assert.equal(error.provider, 'ACME');
    assert.equal(error.operation, 'charge');
    return error;
  };

  it("sends the method, headers and body, and answers the provider's status and text as they are", async () => {
    const answer = await sendProviderRequest(request('/pay'));
    assert.deepEqual(answer, { status: 402, text: '{"result":"ERROR"}' });
    const last = seen.at(-1)!;
    assert.equal(last.method, 'POST');
    assert.equal(last.headers['content-type'], 'text/plain');
    assert.equal(last.body, 'hello');
  });

  it('no answer within the whole-call limit: timeout, sent (the request may have arrived)', async () => {
    const started = Date.now();
    const error = await failureOf(sendProviderRequest(request('/silent', { answerTimeoutMs: 300 })));
    assert.equal(error.kind, 'timeout');
    assert.equal(error.sent, true);
    assert.ok(Date.now() - started < 1000);
  });

  it('the message names the provider, the operation, the host and the path: not the query, headers or body', async () => {
    const error = await failureOf(
      sendProviderRequest(
        request('/silent/pay?card=4242424242424242', {
          headers: { Authorization: 'Basic c2VjcmV0', 'Content-Length': 5 },
          answerTimeoutMs: 200,
        }),
      ),
    );
    assert.equal(error.message, `ACME charge (${base}/silent/pay): no answer within 200 ms`);
    assert.equal(error.name, 'ProviderTransportError');
  });

  it('no connection up in time: connect_timeout, not sent, at the connect limit or, when it comes first, the whole-call limit', async () => {
    for (const [limits, limitMs] of [
      [{ connectTimeoutMs: 200, answerTimeoutMs: 3000 }, 200], // the connect limit
      [{ connectTimeoutMs: 3000, answerTimeoutMs: 400 }, 400], // the whole-call limit
    ] as const) {
      const started = Date.now();
      const error = await failureOf(sendProviderRequest(request(`${silentBase}/pay`, limits)));
      const took = Date.now() - started;
      assert.equal(error.kind, 'connect_timeout');
      assert.equal(error.sent, false);
      assert.match(error.message, new RegExp(`no connection within ${limitMs} ms$`));
      assert.ok(took >= limitMs - 50 && took < limitMs + 1000, `took ${took} ms`);
    }
  });

  it('an answer beyond maxAnswerBytes fails as too_large (sent), or is cut (the chunks beyond the limit dropped)', async () => {
    const error = await failureOf(sendProviderRequest(request('/big', { maxAnswerBytes: 10 })));
    assert.equal(error.kind, 'too_large');
    assert.equal(error.sent, true);
    const cut = await sendProviderRequest(request('/big', { maxAnswerBytes: 10, beyondMax: 'cut' }));
    assert.equal(cut.status, 200);
    assert.ok(cut.text.length <= 10);
  });

  it('a refused connection: network, not sent (nothing was sent)', async () => {
    const error = await failureOf(sendProviderRequest(request('http://127.0.0.1:9/')));
    assert.equal(error.kind, 'network');
    assert.equal(error.sent, false);
  });

  it('a connection that breaks after the request went, or while the answer is read: network, sent', async () => {
    for (const path of ['/drop', '/broken']) {
      const error = await failureOf(sendProviderRequest(request(path)));
      assert.equal(error.kind, 'network', path);
      assert.equal(error.sent, true, path);
    }
  });
});
