import Decimal from 'decimal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OutboxEvent } from '../../src/events/event.entity';
import { OperationsModule } from '../../src/operations/operations.module';
import { OperationsService } from '../../src/operations/operations.service';
import { Transaction } from '../../src/transactions/transaction.entity';
import { TransactionsService } from '../../src/transactions/transactions.service';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import {
  CARDS,
  createTransaction,
  payWith,
  seedServiceWorld,
  type ServiceWorld,
} from '../setup/service-world';

/** OperationsService.run: capture, void, refund, cancel, expire, delete (contract §5, §10, §16). */
describe('OperationsService', () => {
  let ctx: ServiceContext;
  let w: ServiceWorld;
  let ops: OperationsService;
  const row = (sessionId: string) => ctx.dataSource.getRepository(Transaction).findOneByOrFail({ sessionId });
  const amount = (value: string) => new Decimal(value).toFixed(3);
  const eventNames = async (transactionId: string) =>
    (
      await ctx.dataSource
        .getRepository(OutboxEvent)
        .find({ where: { transactionId }, order: { sequence: 'ASC' } })
    ).map((e) => e.event);
  const run = (body: Record<string, unknown>, trackingKey?: string) => ops.run(w.apiKey, body, trackingKey);

  /** A transaction paid (sandbox) or authorized (sandbox-auth). */
  async function paid(overrides: Record<string, unknown> = {}): Promise<string> {
    const { body } = await createTransaction(ctx, w.apiKey, overrides);
    await payWith(ctx, body.session_id, CARDS.success);
    return body.session_id;
  }
  const authorized = () => paid({ pg_codes: ['sandbox-auth'] });

  before(async () => {
    ctx = await createServiceContext({ imports: [OperationsModule] });
    w = await seedServiceWorld(ctx);
    ops = ctx.get(OperationsService);
  });
  after(() => ctx.close());

  describe('capture and void (authorized only)', () => {
    it('capture without an amount captures all: captured, captured_amount = amount', async () => {
      const id = await authorized();
      const answer = await run({ operation: 'capture', session_id: id });
      assert.equal(answer.status, 200);
      assert.deepEqual(
        { result: answer.body.result, state: answer.body.state, amount: answer.body.amount },
        { result: 'success', state: 'captured', amount: '86.000' },
      );
      const tx = await row(id);
      assert.equal(amount(tx.capturedAmount), '86.000');
      assert.deepEqual(await eventNames(tx.id), ['created', 'authorized', 'captured']);
    });

    it('a partial capture keeps the amount captured; more than authorized is refused', async () => {
      const id = await authorized();
      const over = await run({ operation: 'capture', session_id: id, amount: '86.001' });
      assert.equal(over.status, 400);
      assert.equal(over.body.result, 'failed');
      assert.equal((await row(id)).state, 'authorized');
      const part = await run({ operation: 'capture', session_id: id, amount: '40' });
      assert.equal(part.body.amount, '40.000');
      const tx = await row(id);
      assert.equal(tx.state, 'captured');
      assert.equal(amount(tx.capturedAmount), '40.000');
    });

    it('amounts: more decimals than the currency has, zero and non-decimals are refused', async () => {
      const id = await authorized();
      for (const bad of ['1.0001', '0', '-1', 'ten']) {
        const answer = await run({ operation: 'capture', session_id: id, amount: bad });
        assert.equal(answer.status, 400, bad);
        assert.equal(answer.body.result, 'failed', bad);
      }
      assert.equal((await row(id)).state, 'authorized');
    });

    it('void releases the authorization; a voided transaction cannot be captured (contract §5)', async () => {
      const id = await authorized();
      assert.equal((await run({ operation: 'void', session_id: id })).body.state, 'voided');
      const tx = await row(id);
      assert.equal(amount(tx.voidedAmount), '86.000');
      const capture = await run({ operation: 'capture', session_id: id });
      assert.deepEqual(capture, {
        status: 400,
        body: {
          detail: 'Cannot capture a transaction in state "voided".',
          operation: 'capture',
          result: 'failed',
        },
      });
    });

    it('a paid (purchase) transaction cannot be captured or voided', async () => {
      const id = await paid();
      for (const operation of ['capture', 'void']) {
        const answer = await run({ operation, session_id: id });
        assert.equal(answer.status, 400, operation);
      }
      assert.equal((await row(id)).state, 'paid');
    });
  });

  describe('refund (paid or captured)', () => {
    it('partial refunds keep the state and add up; the last one reaching the amount refunds', async () => {
      const id = await paid();
      const first = await run({ operation: 'refund', session_id: id, amount: '30' });
      assert.deepEqual([first.body.state, first.body.amount], ['paid', '30.000']);
      const over = await run({ operation: 'refund', session_id: id, amount: '56.001' });
      assert.equal(over.status, 400);
      assert.equal(over.body.detail, 'The amount exceeds what is left to refund (56.000).');
      const rest = await run({ operation: 'refund', session_id: id });
      assert.deepEqual([rest.body.state, rest.body.amount], ['refunded', '56.000']);
      const tx = await row(id);
      assert.equal(amount(tx.refundedAmount), '86.000');
      assert.deepEqual(await eventNames(tx.id), ['created', 'paid', 'refunded', 'refunded']);
      const again = await run({ operation: 'refund', session_id: id });
      assert.equal(again.status, 400);
    });

    it('a captured transaction refunds what was captured, not what was authorized', async () => {
      const id = await authorized();
      await run({ operation: 'capture', session_id: id, amount: '50' });
      const all = await run({ operation: 'refund', session_id: id });
      assert.deepEqual([all.body.state, all.body.amount], ['refunded', '50.000']);
    });

    it('concurrent partial refunds never refund more than was paid', async () => {
      const id = await paid({ amount: '10' });
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => run({ operation: 'refund', session_id: id, amount: '3' })),
      );
      const succeeded = answers.filter((a) => a.status === 200).length;
      assert.equal(succeeded, 3);
      assert.equal(amount((await row(id)).refundedAmount), '9.000');
    });
  });

  describe('cancel, expire and delete', () => {
    it('cancel and expire apply to payable transactions only', async () => {
      const { body: a } = await createTransaction(ctx, w.apiKey);
      assert.equal((await run({ operation: 'cancel', session_id: a.session_id })).body.state, 'canceled');
      const { body: b } = await createTransaction(ctx, w.apiKey);
      assert.equal((await run({ operation: 'expire', session_id: b.session_id })).body.state, 'expired');
      const id = await paid();
      assert.equal((await run({ operation: 'cancel', session_id: id })).status, 400);
      assert.equal((await run({ operation: 'expire', session_id: id })).status, 400);
      assert.equal((await row(id)).state, 'paid');
    });

    it('delete hides the transaction; a payable one is canceled first in the same unit (contract §16)', async () => {
      const { body } = await createTransaction(ctx, w.apiKey, { order_no: 'svc-delete-1' });
      const answer = await run({ operation: 'delete', order_no: 'svc-delete-1' });
      assert.deepEqual([answer.status, answer.body.state], [200, 'canceled']);
      const tx = await row(body.session_id);
      assert.ok(tx.deletedAt);
      assert.deepEqual(await eventNames(tx.id), ['created', 'canceled']);
      await assert.rejects(ctx.get(TransactionsService).get(body.session_id));
      // The order_no is free again.
      await createTransaction(ctx, w.apiKey, { order_no: 'svc-delete-1' });
    });

    it('an authorized transaction cannot be deleted', async () => {
      const id = await authorized();
      assert.equal((await run({ operation: 'delete', session_id: id })).status, 400);
      assert.equal((await row(id)).deletedAt, null);
    });

    it('unknown, unnamed and other users’ transactions: 404 / 400, revealing nothing (contract §3)', async () => {
      assert.equal((await run({ operation: 'cancel', session_id: 'f'.repeat(40) })).status, 404);
      assert.equal((await run({ operation: 'cancel' })).status, 400);
      assert.equal((await run({ operation: 'launch', session_id: 'f'.repeat(40) })).status, 400);
      const { body } = await createTransaction(ctx, w.apiKey, { pg_codes: ['sandbox-auth'] });
      const hidden = await ops.run(w.merchant, { operation: 'cancel', session_id: body.session_id });
      assert.equal(hidden.status, 404);
      assert.equal((await row(body.session_id)).state, 'created');
    });
  });

  describe('Tracking-Key (contract §10)', () => {
    it('a repeat returns the first answer without running again; another body is 422', async () => {
      const id = await paid();
      const first = await run({ operation: 'refund', session_id: id, amount: '1' }, 'svc-track-1');
      const repeat = await run({ operation: 'refund', session_id: id, amount: '1' }, 'svc-track-1');
      assert.equal(repeat.replayed, true);
      assert.deepEqual(repeat.body, first.body);
      assert.equal(amount((await row(id)).refundedAmount), '1.000');
      const other = await run({ operation: 'refund', session_id: id, amount: '2' }, 'svc-track-1');
      assert.equal(other.status, 422);
      assert.equal(amount((await row(id)).refundedAmount), '1.000');
    });
  });
});
