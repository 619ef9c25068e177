import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Delivery } from '../../src/events/delivery.entity';
import { OutboxEvent } from '../../src/events/event.entity';
import type { DeliveryOutcome } from '../../src/events/delivery-outcome';
import { WebhookSender } from '../../src/events/webhooks/webhook-sender';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { OperationsModule } from '../../src/operations/operations.module';
import { OperationsService } from '../../src/operations/operations.service';
import {
  GATEWAY_ADAPTERS,
  type FollowUpInput,
  type FollowUpOutcome,
  type GatewayDriver,
} from '../../src/payments/adapters/gateway-adapter';
import { SandboxGatewayAdapter } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { SandboxOperation } from '../../src/payments/drivers/sandbox/sandbox-operation.entity';
import { OperationSettlement } from '../../src/payments/operation-settlement';
import { ProviderOperation } from '../../src/payments/provider-operation.entity';
import { ProviderOperationsRepository } from '../../src/payments/provider-operations.repository';
import { Transaction } from '../../src/transactions/transaction.entity';
import type { ProviderOverride } from '../../src/app.factory';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import { testDbKind } from '../setup/test-database';
import {
  CARDS,
  createTransaction,
  payWith,
  seedServiceWorld,
  type ServiceWorld,
} from '../setup/service-world';

/** What the provider does with the next new operation key, and whether its answer reaches us. */
interface Step {
  outcome: 'success' | 'failed';
  /** The answer is lost (a timeout): the provider carried the operation out all the same. */
  lost?: boolean;
}

/**
 * A provider at the edge of the service tier: the sandbox for payments, and for capture, void and
 * refund a ledger by operation key as Stripe keeps Idempotency-Keys (the first outcome, reported
 * again for the same key: https://docs.stripe.com/api/idempotent_requests). What it does with a new
 * key, and whether its answer arrives, is scripted per test.
 */
class ScriptedProvider implements GatewayDriver {
  readonly name = 'sandbox';
  readonly flow = 'card_form' as const;
  /** Every followUp call, in order. */
  readonly calls: FollowUpInput[] = [];
  /** Operations carried out, one entry per time (a key twice would be a double refund). */
  readonly carriedOut: Array<{ key: string; operation: string; amount: string; outcome: string }> = [];
  /** How long each followUp takes. */
  delayMs = 0;
  private readonly steps: Step[] = [];
  private readonly ledger = new Map<string, 'success' | 'failed'>();
  private sandbox!: SandboxGatewayAdapter;

  bind(sandbox: SandboxGatewayAdapter): this {
    this.sandbox = sandbox;
    return this;
  }

  next(...steps: Step[]): void {
    this.steps.push(...steps);
  }

  serves(gateway: Parameters<GatewayDriver['serves']>[0]): boolean {
    return this.sandbox.serves(gateway);
  }

  pay(input: Parameters<GatewayDriver['pay']>[0]): ReturnType<GatewayDriver['pay']> {
    return this.sandbox.pay(input);
  }

  inquire(input: Parameters<GatewayDriver['inquire']>[0]): ReturnType<GatewayDriver['inquire']> {
    return this.sandbox.inquire(input);
  }

  async followUp(input: FollowUpInput): Promise<FollowUpOutcome> {
    this.calls.push(input);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const key = input.operationKey ?? '';
    const first = this.ledger.get(key);
    if (first) return { result: first, message: first === 'failed' ? 'The provider refused it.' : undefined };
    const step = this.steps.shift() ?? { outcome: 'success' };
    this.ledger.set(key, step.outcome);
    this.carriedOut.push({ key, operation: input.operation, amount: input.amount, outcome: step.outcome });
    if (step.lost) return { result: 'unknown' };
    return step.outcome === 'failed'
      ? { result: 'failed', message: 'The provider refused it.' }
      : { result: 'success' };
  }
}

const OK: DeliveryOutcome = { ok: true, retryable: false, statusCode: 200, error: null, responseBody: null };

/**
 * Provider operations with the durability of a payment attempt (contract §20 "Operations", §17):
 * the operation row is claimed before the provider is called, a pending one is finished by the
 * reconciler with the same key, once across replicas, and a failure is told to the merchant.
 */
describe('Provider operations (OperationSettlement)', () => {
  let ctx: ServiceContext;
  let replica: ServiceContext;
  let w: ServiceWorld;
  let ops: OperationsService;
  let settlement: OperationSettlement;
  const provider = new ScriptedProvider();

  const overrides: ProviderOverride[] = [
    {
      provide: GATEWAY_ADAPTERS,
      useFactory: (sandbox: SandboxGatewayAdapter) => [provider.bind(sandbox)],
      inject: [SandboxGatewayAdapter],
    },
    {
      provide: WebhookSender,
      useValue: { send: () => Promise.resolve(OK), onApplicationShutdown: () => undefined },
    },
  ];
  // A pending operation may be asked about again 1 s after its last call.
  const env = { PAYMENT_ATTEMPT_TIMEOUT_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE: 'true' };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const untilRetryable = () => pause(1100);

  const row = (sessionId: string) => ctx.dataSource.getRepository(Transaction).findOneByOrFail({ sessionId });
  const operationsOf = (transactionId: string) =>
    ctx.dataSource.getRepository(ProviderOperation).find({ where: { transactionId }, order: { id: 'ASC' } });
  const eventsOf = (transactionId: string) =>
    ctx.dataSource.getRepository(OutboxEvent).find({ where: { transactionId }, order: { sequence: 'ASC' } });
  const amount = (value: string) => Number(value).toFixed(3);

  async function paid(overrides: Record<string, unknown> = {}): Promise<string> {
    const { body } = await createTransaction(ctx, w.apiKey, {
      webhook_url: 'http://127.0.0.1:9/hook',
      ...overrides,
    });
    await payWith(ctx, body.session_id, CARDS.success);
    return body.session_id;
  }

  before(async () => {
    ctx = await createServiceContext({ imports: [OperationsModule], env, overrides });
    replica = await createServiceContext({ imports: [OperationsModule], env, overrides, db: ctx.db });
    w = await seedServiceWorld(ctx);
    ops = ctx.get(OperationsService);
    settlement = ctx.get(OperationSettlement);
  });
  after(async () => {
    await replica.close();
    await ctx.close();
  });

  it('a confirmed operation: claimed before the call, its key sent, its answer stored, then settled with its event', async () => {
    const id = await paid();
    const answer = await ops.run(w.apiKey, { operation: 'refund', session_id: id, amount: '6' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const tx = await row(id);
    const [op, ...more] = await operationsOf(tx.id);
    assert.equal(more.length, 0);
    assert.deepEqual(
      { operation: op.operation, amount: amount(op.amount), state: op.state, open: op.openTransactionId },
      { operation: 'refund', amount: '6.000', state: 'success', open: null },
    );
    assert.match(op.operationKey, /^op_[0-9a-f]{32}$/);
    assert.ok(op.answeredAt && op.settledAt, 'answered, then settled');
    assert.equal(provider.calls.at(-1)!.operationKey, op.operationKey, 'the provider got the row’s key');
    assert.equal(amount(tx.refundedAmount), '6.000');
    assert.deepEqual(
      (await eventsOf(tx.id)).map((e) => e.event),
      ['created', 'paid', 'refunded'],
    );
  });

  it('no answer in time: 503 pending, the row stays pending and open, the transaction unchanged', async () => {
    const id = await paid();
    provider.next({ outcome: 'success', lost: true });
    const answer = await ops.run(
      w.apiKey,
      { operation: 'refund', session_id: id, amount: '10' },
      'svc-track-1',
    );
    assert.equal(answer.status, 503);
    assert.equal(answer.body.result, 'pending');
    const tx = await row(id);
    const [op] = await operationsOf(tx.id);
    assert.deepEqual(
      { state: op.state, open: op.openTransactionId, tracking: op.trackingKey, settled: op.settledAt },
      { state: 'pending', open: tx.id, tracking: 'svc-track-1', settled: null },
    );
    assert.equal(amount(tx.refundedAmount), '0.000');
    assert.deepEqual(
      (await eventsOf(tx.id)).map((e) => e.event),
      ['created', 'paid'],
    );

    // Another operation (no key, or another key) is refused while it is pending: 409, nothing sent.
    const calls = provider.calls.length;
    const other = await ops.run(
      w.apiKey,
      { operation: 'refund', session_id: id, amount: '1' },
      'svc-track-2',
    );
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.equal(other.body.result, 'failed');
    const untracked = await ops.run(w.apiKey, { operation: 'refund', session_id: id, amount: '10' });
    assert.equal(untracked.status, 409);
    const deleted = await ops.run(w.apiKey, { operation: 'delete', session_id: id });
    assert.equal(deleted.status, 409, 'nor is it deleted meanwhile');
    assert.equal(provider.calls.length, calls, 'the provider was not called');
    assert.equal((await operationsOf(tx.id)).length, 1);
    // Left for the reconciler, which finishes it (the next tests start with nothing open).
    await untilRetryable();
    await settlement.reconcile();
    assert.equal((await operationsOf(tx.id))[0].state, 'success');
  });

  it('pending → the reconciler asks again with the same key: refunded once, the event recorded once', async () => {
    const id = await paid();
    provider.next({ outcome: 'success', lost: true });
    assert.equal((await ops.run(w.apiKey, { operation: 'refund', session_id: id })).status, 503);
    const tx = await row(id);
    const [pending] = await operationsOf(tx.id);
    // Not before the provider has certainly finished with the first call.
    assert.deepEqual(await settlement.reconcile(), { succeeded: 0, failed: 0, left: 0 });
    assert.equal((await operationsOf(tx.id))[0].state, 'pending');
    await untilRetryable();
    const run = await settlement.reconcile();
    assert.deepEqual(run, { succeeded: 1, failed: 0, left: 0 });
    const [done] = await operationsOf(tx.id);
    assert.deepEqual({ state: done.state, open: done.openTransactionId }, { state: 'success', open: null });
    assert.ok(done.settledAt);
    const now = await row(id);
    assert.deepEqual([now.state, amount(now.refundedAmount)], ['refunded', '86.000']);
    const keys = provider.calls.filter((c) => c.operationKey === pending.operationKey);
    assert.equal(keys.length, 2, 'asked twice, with the same key');
    assert.equal(
      provider.carriedOut.filter((c) => c.key === pending.operationKey).length,
      1,
      'carried out once',
    );
    const events = await eventsOf(tx.id);
    assert.deepEqual(
      events.map((e) => e.event),
      ['created', 'paid', 'refunded'],
    );
    assert.deepEqual(
      [events[2].payload.operation, events[2].payload.operation_amount, events[2].payload.result],
      ['refund', '86.000', 'success'],
    );
    // A later run finds nothing left.
    await untilRetryable();
    assert.deepEqual(await settlement.reconcile(), { succeeded: 0, failed: 0, left: 0 });
  });

  it('pending → the provider refused it: closed as failed, the transaction unchanged, the merchant told by webhook only', async () => {
    const id = await paid({
      pg_codes: ['sandbox-auth'],
      customer_email: 'customer@example.com',
      notifications: { email: ['failed', 'captured'], sms: [] },
    });
    provider.next({ outcome: 'failed', lost: true });
    const answer = await ops.run(w.apiKey, { operation: 'capture', session_id: id, amount: '40' });
    assert.equal(answer.status, 503);
    await untilRetryable();
    assert.equal((await settlement.reconcile()).failed, 1);
    const tx = await row(id);
    const [op] = await operationsOf(tx.id);
    assert.deepEqual(
      { state: op.state, message: op.message, open: op.openTransactionId },
      { state: 'failed', message: 'The provider refused it.', open: null },
    );
    assert.deepEqual([tx.state, amount(tx.capturedAmount)], ['authorized', '0.000']);
    const events = await eventsOf(tx.id);
    assert.deepEqual(
      events.map((e) => e.event),
      ['created', 'authorized', 'failed'],
    );
    const told = events[2];
    assert.deepEqual(
      {
        state: told.payload.state,
        operation: told.payload.operation,
        amount: told.payload.operation_amount,
        result: told.payload.result,
        message: told.payload.message,
      },
      {
        state: 'authorized',
        operation: 'capture',
        amount: '40.000',
        result: 'failed',
        message: 'The provider refused it.',
      },
    );
    const deliveries = await ctx.dataSource.getRepository(Delivery).find({ where: { eventRowId: told.id } });
    assert.deepEqual(
      deliveries.map((d) => d.channel),
      ['webhook'],
      'the customer gets no “payment failed” e-mail',
    );
    // The transaction is free again: the capture can be sent anew.
    const again = await ops.run(w.apiKey, { operation: 'capture', session_id: id, amount: '40' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });

  it('the merchant repeats the pending operation with its Tracking-Key: the same key is sent, the first outcome answered', async () => {
    const id = await paid({ pg_codes: ['sandbox-auth'] });
    provider.next({ outcome: 'success', lost: true });
    const body = { operation: 'void', session_id: id };
    assert.equal((await ops.run(w.apiKey, body, 'svc-void-1')).status, 503);
    const tx = await row(id);
    const [op] = await operationsOf(tx.id);
    // Too early: the first call may still be running at the provider.
    assert.equal((await ops.run(w.apiKey, body, 'svc-void-1')).status, 503);
    await untilRetryable();
    const repeat = await ops.run(w.apiKey, body, 'svc-void-1');
    assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
    assert.equal(repeat.body.state, 'voided');
    assert.deepEqual(
      provider.calls.filter((c) => c.operationKey === op.operationKey).length,
      2,
      'the repeat reused the operation’s key',
    );
    assert.equal(provider.carriedOut.filter((c) => c.key === op.operationKey).length, 1);
    assert.equal((await operationsOf(tx.id)).length, 1, 'no second operation was written');
    // Now an answer to replay.
    const replay = await ops.run(w.apiKey, body, 'svc-void-1');
    assert.equal(replay.replayed, true);
    assert.equal(replay.status, 200);
  });

  it('a burst of captures: the provider carries out one, the others are refused once it settled', async () => {
    const id = await paid({ pg_codes: ['sandbox-auth'] });
    const before = provider.carriedOut.length;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => ops.run(w.apiKey, { operation: 'capture', session_id: id })),
    );
    assert.deepEqual(
      answers.map((a) => a.status).sort(),
      [200, 400, 400, 400, 400],
      JSON.stringify(answers.map((a) => a.body)),
    );
    assert.equal(provider.carriedOut.length - before, 1, 'one capture reached the provider');
    const tx = await row(id);
    assert.equal(amount(tx.capturedAmount), '86.000');
    assert.equal((await operationsOf(tx.id)).length, 1);
  });

  it('two replicas reconciling the same pending operation: one calls the provider, it is settled once', async () => {
    const id = await paid();
    provider.next({ outcome: 'success', lost: true });
    assert.equal(
      (await ops.run(w.apiKey, { operation: 'refund', session_id: id, amount: '20' })).status,
      503,
    );
    const tx = await row(id);
    const [op] = await operationsOf(tx.id);
    await untilRetryable();
    provider.delayMs = 300;
    try {
      const runs = await Promise.all([settlement.reconcile(), replica.get(OperationSettlement).reconcile()]);
      assert.equal(runs[0].succeeded + runs[1].succeeded, 1, JSON.stringify(runs));
    } finally {
      provider.delayMs = 0;
    }
    assert.equal(
      provider.calls.filter((c) => c.operationKey === op.operationKey).length,
      2,
      'one retry, not two',
    );
    assert.equal(amount((await row(id)).refundedAmount), '20.000');
    assert.deepEqual(
      (await eventsOf(tx.id)).map((e) => e.event),
      ['created', 'paid', 'refunded'],
    );
  });

  it('an answer settled by two replicas at once changes the transaction once', async () => {
    const id = await paid();
    const tx = await row(id);
    const claim = await settlement.claim(tx, { operation: 'refund', amount: '5' });
    assert.ok('claimed' in claim);
    await ctx
      .get(ProviderOperationsRepository)
      .storeAnswer(claim.claimed.id, { state: 'success', message: null });
    const answered = (await operationsOf(tx.id))[0];
    // Two replicas on MySQL; on SQLite (one replica by design: its gate is per process) two callers.
    const other = testDbKind() === 'mysql' ? replica : ctx;
    const outcomes = await Promise.all([
      settlement.settle(answered, true),
      other.get(OperationSettlement).settle(answered, true),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['success', 'success'],
    );
    assert.equal(amount((await row(id)).refundedAmount), '5.000');
    assert.deepEqual(
      (await eventsOf(tx.id)).map((e) => e.event),
      ['created', 'paid', 'refunded'],
    );
    // A claim planned on the row as it was before the settlement is withdrawn: plan again.
    const stale = await settlement.claim(tx, { operation: 'refund', amount: '1' });
    assert.ok('stale' in stale);
    assert.equal((await operationsOf(tx.id)).length, 1, 'nothing was left of it');
    // A claim while one is open gets the open one back instead.
    const fresh = await row(id);
    const second = await settlement.claim(fresh, { operation: 'refund', amount: '1' });
    assert.ok('claimed' in second, 'the settled operation no longer holds the transaction');
    const third = await settlement.claim(fresh, { operation: 'refund', amount: '1' });
    assert.ok('open' in third);
    assert.equal(String(third.open?.id), String(second.claimed.id));
    const finished = await settlement.carryOut(second.claimed, { claimed: true, tellMerchant: false });
    assert.equal(finished.kind, 'success');
    assert.equal(amount((await row(id)).refundedAmount), '6.000');
  });

  it('the sandbox keeps its operations by key: the same key reports the first outcome and does nothing more', async () => {
    const sandbox = ctx.get(SandboxGatewayAdapter);
    const call = {
      gateway: (await ctx.get(GatewaysService).findByCode('sandbox'))!,
      settings: {},
      operation: 'refund' as const,
      referenceNumber: 'REF-SANDBOX-1',
      amount: '3',
      currencyCode: 'KWD',
      operationKey: 'op_sandbox_key_1',
    };
    assert.deepEqual(await sandbox.followUp(call), { result: 'success' });
    assert.deepEqual(await sandbox.followUp(call), { result: 'success' });
    const rows = await ctx.dataSource
      .getRepository(SandboxOperation)
      .find({ where: { operationKey: 'op_sandbox_key_1' } });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].referenceNumber, 'REF-SANDBOX-1');
  });
});
