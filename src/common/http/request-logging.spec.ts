import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { redactedUrl, requestLogging } from './request-logging';

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

  it('redacts e-mail, phone and customer query parameters (contract §14), as sent or percent-encoded', async () => {
    const res = await fetch(
      `${base}/b/checkout/v1/admin/pymt-txn/?state=paid&customer_email=jane%40example.com&customer_phone=%2B96550001234`,
      { headers: { 'X-Request-Id': 'search-1' } },
    );
    assert.equal(res.status, 200);
    assert.equal(
      (lineOf('search-1')!.req as { url: string }).url,
      '/b/checkout/v1/admin/pymt-txn/?state=paid&customer_email=[redacted]&customer_phone=[redacted]',
    );
    assert.doesNotMatch(JSON.stringify(lines), /jane|96550001234/);
  });
});

describe('redactedUrl', () => {
  it('keeps a URL without a query, and harmless parameters, as they are', () => {
    assert.equal(redactedUrl('/b/checkout/v1/pymt-txn/abc/'), '/b/checkout/v1/pymt-txn/abc/');
    assert.equal(
      redactedUrl(
        '/b/checkout/v1/admin/pymt-txn/?state=paid&order_no=A-1&limit=20&created_after=2026-01-01T00:00:00Z',
      ),
      '/b/checkout/v1/admin/pymt-txn/?state=paid&order_no=A-1&limit=20&created_after=2026-01-01T00:00:00Z',
    );
    assert.equal(redactedUrl('/x?flag&lang=ar'), '/x?flag&lang=ar');
  });

  it('redacts by the decoded name: credentials, e-mail, phone, customer data, in any spelling', () => {
    for (const name of [
      'card',
      'key',
      'password',
      'customer_email',
      'customer_phone',
      'email',
      'phone',
      'mobile',
      'customer_id',
      'customer_first_name',
      'Email',
      'customer%5Femail',
      'customer_email[]',
      'customer_email%5B0%5D',
      'api_key',
      'token',
    ]) {
      assert.equal(redactedUrl(`/p?a=1&${name}=secret-value&b=2`), `/p?a=1&${name}=[redacted]&b=2`, name);
    }
  });

  it('redacts a value that looks like an e-mail address or a card number under any name', () => {
    assert.equal(redactedUrl('/p?order_no=jane%40example.com'), '/p?order_no=[redacted]');
    assert.equal(redactedUrl('/p?q=jane@example.com&x=1'), '/p?q=[redacted]&x=1');
    assert.equal(redactedUrl('/p?q=4111111111111111'), '/p?q=[redacted]');
    assert.equal(redactedUrl('/p?q=4111+1111+1111+1111'), '/p?q=[redacted]');
    assert.equal(redactedUrl('/p?q=4111-1111-1111-1111'), '/p?q=[redacted]');
    assert.equal(redactedUrl('/p?limit=100&q=12345'), '/p?limit=100&q=12345');
  });

  it('judges a malformed escape as sent, never throwing', () => {
    assert.equal(redactedUrl('/p?email%=x&q=%E0%A4%A'), '/p?email%=[redacted]&q=%E0%A4%A');
  });
});
