import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { requestLogging } from './request-logging';

describe('access log', () => {
  const lines: Record<string, unknown>[] = [];
  let server: Server;
  let base: string;
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const log = requestLogging(pino(sink));
    server = createServer((req, res) =>
      log(req, res, () => {
        const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
        if (status === 0) return; // never answers: the client gives up
        res.writeHead(status, { 'X-Seen-Id': req.id }).end('ok');
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const lineOf = (id: string) => lines.find((l) => (l.req as { id: string }).id === id);

  it('echoes a sane X-Request-Id, sets it on the request, and logs one line with status and time', async () => {
    const res = await fetch(`${base}/a?card=4111111111111111&x=1`, {
      headers: { 'X-Request-Id': 'abc-123', Authorization: 'Api-Key secret.secret' },
    });
    assert.equal(res.headers.get('x-request-id'), 'abc-123');
    assert.equal(res.headers.get('x-seen-id'), 'abc-123');
    const line = lineOf('abc-123')!;
    assert.equal(line.msg, 'request completed');
    assert.equal(line.level, 30);
    assert.deepEqual((line.res as { statusCode: number }).statusCode, 200);
    assert.equal((line.req as { url: string }).url, '/a?card=[redacted]&x=1');
    assert.equal(typeof line.responseTime, 'number');
    assert.doesNotMatch(JSON.stringify(lines), /secret\.secret|4111111111111111/);
  });

  it('makes a fresh id for a missing or insane one; warns on 4xx, errors on 5xx', async () => {
    const bad = await fetch(`${base}/b?status=404`, { headers: { 'X-Request-Id': 'no spaces allowed' } });
    const made = bad.headers.get('x-request-id')!;
    assert.match(made, /^[0-9a-f-]{36}$/);
    assert.equal(lineOf(made)!.level, 40);
    const failed = await fetch(`${base}/c?status=503`);
    assert.equal(lineOf(failed.headers.get('x-request-id')!)!.level, 50);
  });

  it('logs a request whose client went away before the answer as aborted', async () => {
    await new Promise<void>((resolve) => {
      const req = request(`${base}/d?status=0`, { headers: { 'X-Request-Id': 'gone-1' } });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => req.destroy(), 50);
    });
    for (let i = 0; i < 50 && !lineOf('gone-1'); i++) await new Promise((r) => setTimeout(r, 10));
    const line = lineOf('gone-1')!;
    assert.equal(line.msg, 'request aborted');
    assert.equal(line.level, 40);
  });
});
