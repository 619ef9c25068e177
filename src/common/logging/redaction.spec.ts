import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createLogger, REDACT_PATHS, unredactedSibling } from './logger';

describe('log redaction', () => {
  it('censors card data, secrets and customer contacts wherever they appear one level down', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
    logger.info({
      body: { card: '4111111111111111', cvc: '7391', expiry: '12/30', name_on_card: 'Jane Doe' },
      attempt: { gatewayToken: 'sbx_secret', gateway_token: 'sbx_secret' },
      customer: { customer_email: 'a@b.c', customer_phone: '+96550000000', password: 'hunter22' },
    });
    const line = lines.join('');
    for (const secret of [
      '4111111111111111',
      '7391',
      '12/30',
      'Jane Doe',
      'sbx_secret',
      'a@b.c',
      '+96550000000',
      'hunter22',
    ]) {
      assert.ok(!line.includes(secret), `${secret} reached the log`);
    }
    assert.equal((line.match(/\[redacted\]/g) ?? []).length, 9);
  });

  it("the service's logger censors; its unredacted sibling (the access log) writes to the same stream at the same level", () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger('info', sink);
    const access = unredactedSibling(logger);
    logger.info({ req: { key: 'k-secret' } }, 'redacted');
    access.info({ req: { id: 'r-1', key: 'plain' } }, 'request completed');
    access.debug({ req: { id: 'r-2' } }, 'below the level');
    assert.deepEqual(
      lines.map((l) => [l.msg, l.service, l.req]),
      [
        ['redacted', 'checkout', { key: '[redacted]' }],
        ['request completed', 'checkout', { id: 'r-1', key: 'plain' }],
      ],
    );
    assert.match(String(lines[1].time), /^\d{4}-\d\d-\d\dT/);
  });
});
