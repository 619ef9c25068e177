import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ProviderHttpError, sendProviderRequest, type ProviderHttpRequest } from './provider-http';

/** The provider clients' one HTTP exchange: its answer, its limits, and the one error it fails with. */
describe('sendProviderRequest', () => {
  let server: Server;
  let base: string;
  const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url === '/silent') return; // never answers
        if (req.url === '/big') return res.end('x'.repeat(100));
        res.statusCode = 402;
        res.end('{"result":"ERROR"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const request = (path: string, more: Partial<ProviderHttpRequest> = {}): ProviderHttpRequest => ({
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
      () => assert.fail('expected a ProviderHttpError'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ProviderHttpError);
    return error.failure;
  };

  it("sends the method, headers and body, and answers the provider's status and text as they are", async () => {
    const answer = await sendProviderRequest(request('/pay'));
    assert.deepEqual(answer, { status: 402, text: '{"result":"ERROR"}' });
    const last = seen.at(-1)!;
    assert.equal(last.method, 'POST');
    assert.equal(last.headers['content-type'], 'text/plain');
    assert.equal(last.body, 'hello');
  });

  it('no answer within the whole-call limit: answer_limit, connected (the request may have arrived)', async () => {
    const started = Date.now();
    const failure = await failureOf(sendProviderRequest(request('/silent', { answerTimeoutMs: 300 })));
    assert.deepEqual(failure, { kind: 'answer_limit', connected: true });
    assert.ok(Date.now() - started < 1000);
  });

  it('an answer beyond maxAnswerBytes fails as too_large, or is cut (the chunks beyond the limit dropped)', async () => {
    assert.deepEqual(await failureOf(sendProviderRequest(request('/big', { maxAnswerBytes: 10 }))), {
      kind: 'too_large',
    });
    const cut = await sendProviderRequest(request('/big', { maxAnswerBytes: 10, beyondMax: 'cut' }));
    assert.equal(cut.status, 200);
    assert.ok(cut.text.length <= 10);
  });

  it('a refused connection: request_error, not connected (nothing was sent)', async () => {
    const failure = await failureOf(sendProviderRequest(request('http://127.0.0.1:9/')));
    assert.equal(failure.kind, 'request_error');
    assert.ok(failure.kind === 'request_error' && !failure.connected);
  });
});
