import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ConsoleLogger, Logger } from '@nestjs/common';
import { createLogger, PinoNestLogger } from './logger';

/**
 * PinoNestLogger as Nest's `Logger` calls it: a `new Logger('Context')` forwards
 * `warn(fields, 'message')` as `warn(fields, 'message', 'Context')`. Every level must keep the
 * message, the context and the fields (the error lines were losing their message).
 */
describe('PinoNestLogger through Nest Logger', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = new Logger('Payments');

  before(() => {
    Logger.overrideLogger(new PinoNestLogger(createLogger('trace', sink)));
  });
  after(() => {
    Logger.overrideLogger(new ConsoleLogger());
  });
  beforeEach(() => lines.splice(0));

  const only = (): Record<string, unknown> => {
    assert.equal(lines.length, 1, JSON.stringify(lines));
    return lines[0];
  };

  for (const [method, level] of [
    ['error', 50],
    ['warn', 40],
    ['log', 30],
    ['debug', 20],
    ['verbose', 10],
    ['fatal', 60],
  ] as const) {
    it(`${method}(fields, message): the message, the context and the fields`, () => {
      logger[method]({ sessionId: 's-1', attempt: 3 }, 'An attempt could not be settled');
      const line = only();
      assert.equal(line.level, level);
      assert.equal(line.msg, 'An attempt could not be settled');
      assert.equal(line.context, 'Payments');
      assert.equal(line.sessionId, 's-1');
      assert.equal(line.attempt, 3);
    });

    it(`${method}(message): the message and the context`, () => {
      logger[method]('Reconciler started');
      const line = only();
      assert.equal(line.level, level);
      assert.equal(line.msg, 'Reconciler started');
      assert.equal(line.context, 'Payments');
    });
  }

  it('error(fields with err, message): the error is serialized under err, the message kept', () => {
    logger.error({ err: new Error('socket hang up'), reqId: 'r-9' }, 'Unhandled error');
    const line = only();
    assert.equal(line.msg, 'Unhandled error');
    assert.equal(line.context, 'Payments');
    assert.equal(line.reqId, 'r-9');
    const err = line.err as { type: string; message: string; stack: string };
    assert.equal(err.type, 'Error');
    assert.equal(err.message, 'socket hang up');
    assert.match(err.stack, /socket hang up\n\s+at /);
  });

  it("error(message, stack): Nest's own form keeps the stack apart from the context", () => {
    const stack = new Error('boom').stack!;
    logger.error('Request failed', stack);
    const line = only();
    assert.equal(line.msg, 'Request failed');
    assert.equal(line.context, 'Payments');
    assert.equal(line.stack, stack);
  });

  it('error(Error): its message is the line, the error under err', () => {
    logger.error(new Error('cannot decrypt'));
    const line = only();
    assert.equal(line.msg, 'cannot decrypt');
    assert.equal(line.context, 'Payments');
    assert.equal((line.err as { message: string }).message, 'cannot decrypt');
  });

  it('the static Logger (no context) keeps its message', () => {
    Logger.warn('Shutting down');
    const line = only();
    assert.equal(line.msg, 'Shutting down');
    assert.equal(line.context, undefined);
  });

  it("Nest's start-up chatter goes to debug, the rest of log to info", () => {
    new Logger('RoutesResolver').log('TransactionsController {/b/checkout/v1/pymt-txn}');
    new Logger('NestApplication').log('Nest application successfully started');
    assert.deepEqual(
      lines.map((l) => [l.level, l.context, l.msg]),
      [
        [20, 'RoutesResolver', 'TransactionsController {/b/checkout/v1/pymt-txn}'],
        [30, 'NestApplication', 'Nest application successfully started'],
      ],
    );
  });

  it('still censors what it must: fields pass through the redaction', () => {
    logger.error({ body: { card: '4111111111111111' } }, 'Bad card');
    const line = only();
    assert.equal(line.msg, 'Bad card');
    assert.deepEqual(line.body, { card: '[redacted]' });
  });
});
