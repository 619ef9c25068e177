import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { NotFound } from '../../src/common/errors/domain-errors';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { OutboxEvent } from '../../src/events/event.entity';
import type { AttemptOutcome, InquiryInput, PayInput } from '../../src/payments/adapters/gateway-adapter';
import { SandboxCharge } from '../../src/payments/drivers/sandbox/sandbox-charge.entity';
import { SandboxGatewayAdapter } from '../../src/payments/drivers/sandbox/sandbox-driver';
import { SandboxToken } from '../../src/payments/drivers/sandbox/sandbox-token.entity';
import { AttemptSettlement } from '../../src/payments/attempt-settlement';
import { PaymentAttempt } from '../../src/payments/payment-attempt.entity';
import { PaymentsModule } from '../../src/payments/payments.module';
import { ATTEMPT_IN_PROGRESS, AttemptRefused, PaymentsService } from '../../src/payments/payments.service';
import { Transaction } from '../../src/transactions/transaction.entity';
import { leaveCrashedAttempt } from '../factories/crashed-attempts';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import {
  CARDS,
  createTransaction,
  payWith,
  seedServiceWorld,
  type ServiceWorld,
} from '../setup/service-world';

/** The sandbox adapter, able to hold the next charge until the test lets it go. */
class HeldSandboxAdapter extends SandboxGatewayAdapter {
  private gate: { reached: () => void; open: Promise<void> } | null = null;

  /** The next `pay` waits for `release()`; resolves once it has reached the gateway. */
  holdNext(): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const reachedP = new Promise<void>((r) => (reached = r));
    const open = new Promise<void>((r) => (release = r));
    this.gate = { reached, open };
    return { reached: reachedP, release };
  }

  /** References the gateway cannot be asked about (inquiry throws, the attempt stays unsettled). */
  readonly unreachable = new Set<string>();

  override inquire(input: InquiryInput): Promise<AttemptOutcome | null> {
    if (this.unreachable.has(input.referenceNumber)) return Promise.reject(new Error('gateway unreachable'));
    return super.inquire(input);
  }

  override async pay(input: PayInput): Promise<AttemptOutcome> {
    const gate = this.gate;
    this.gate = null;
    if (gate) {
      gate.reached();
      await gate.open;
    }
    return super.pay(input);
  }
}

/** PaymentsService: an attempt claims, asks the gateway, stores its answer, settles once (contract §9, §17). */
describe('PaymentsService', () => {
  let ctx: ServiceContext;
  let w: ServiceWorld;
  let payments: PaymentsService;
  let adapter: HeldSandboxAdapter;
  const tx = (sessionId: string) => ctx.dataSource.getRepository(Transaction).findOneByOrFail({ sessionId });
  const attemptsOf = (transactionId: string) =>
    ctx.dataSource.getRepository(PaymentAttempt).find({ where: { transactionId }, order: { id: 'ASC' } });
  const eventNames = async (transactionId: string) =>
    (
      await ctx.dataSource
        .getRepository(OutboxEvent)
        .find({ where: { transactionId }, order: { sequence: 'ASC' } })
    ).map((e) => e.event);

  before(async () => {
    ctx = await createServiceContext({
      imports: [PaymentsModule],
      overrides: [
        {
          provide: SandboxGatewayAdapter,
          useFactory: (
            charges: Repository<SandboxCharge>,
            tokens: Repository<SandboxToken>,
            uow: UnitOfWork,
          ) => new HeldSandboxAdapter(charges, tokens, uow),
          inject: [getRepositoryToken(SandboxCharge), getRepositoryToken(SandboxToken), UnitOfWork],
        },
      ],
    });
    w = await seedServiceWorld(ctx);
    payments = ctx.get(PaymentsService);
    adapter = ctx.get(SandboxGatewayAdapter) as HeldSandboxAdapter;
  });
  after(() => ctx.close());

  it('a successful attempt on a purchase gateway: paid, the answer stored, settled, one `paid` event', async () => {
    const { body } = await createTransaction(ctx, w.apiKey);
    const result = await payWith(ctx, body.session_id, CARDS.success);
    assert.equal(result.result, 'success');
    assert.equal(result.transaction.state, 'paid');
    const row = await tx(body.session_id);
    assert.equal(row.state, 'paid');
    assert.equal(row.attemptInFlight, null);
    const [attempt, ...more] = await attemptsOf(row.id);
    assert.equal(more.length, 0);
    assert.equal(attempt.referenceNumber, result.referenceNumber);
    assert.equal(attempt.result, 'success');
    assert.equal(attempt.responseCode, '00');
    assert.ok(attempt.completedAt && attempt.settledAt, 'the answer is stored and settled');
    assert.equal(attempt.card?.last4, '1111');
    assert.equal(JSON.stringify(attempt).includes('4111111111111111'), false, 'no card number is kept');
    assert.deepEqual(await eventNames(row.id), ['created', 'paid']);
  });

  it('authorize gateway: a successful attempt authorizes (contract §5)', async () => {
    const { body } = await createTransaction(ctx, w.apiKey, { pg_codes: ['sandbox-auth'] });
    assert.equal((await payWith(ctx, body.session_id, CARDS.success)).transaction.state, 'authorized');
    assert.deepEqual(await eventNames((await tx(body.session_id)).id), ['created', 'authorized']);
  });

  it('declined → failed, error → error (event `failed`); both stay payable and a retry can pay', async () => {
    const { body } = await createTransaction(ctx, w.apiKey);
    const id = body.session_id;
    assert.equal((await payWith(ctx, id, CARDS.declined)).transaction.state, 'failed');
    assert.equal((await payWith(ctx, id, CARDS.error)).transaction.state, 'error');
    assert.equal((await payWith(ctx, id, CARDS.success)).transaction.state, 'paid');
    const row = await tx(id);
    assert.deepEqual(
      (await attemptsOf(row.id)).map((a) => a.result),
      ['declined', 'error', 'success'],
    );
    assert.deepEqual(await eventNames(row.id), ['created', 'failed', 'failed', 'paid']);
  });

  it('a paid transaction refuses another attempt with its real state and writes no attempt', async () => {
    const { body } = await createTransaction(ctx, w.apiKey);
    await payWith(ctx, body.session_id, CARDS.success);
    await assert.rejects(
      payWith(ctx, body.session_id, CARDS.success),
      (e: unknown) => e instanceof AttemptRefused && e.transaction.state === 'paid',
    );
    assert.equal((await attemptsOf((await tx(body.session_id)).id)).length, 1);
  });

  it('a second attempt while one holds the transaction is refused; the first settles once (contract §17)', async () => {
    const { body } = await createTransaction(ctx, w.apiKey);
    const id = body.session_id;
    const held = adapter.holdNext();
    const first = payWith(ctx, id, CARDS.success);
    await held.reached;
    const holding = await tx(id);
    assert.ok(holding.attemptInFlight, 'the claim is written before the gateway is asked');
    const pending = await attemptsOf(holding.id);
    assert.deepEqual(
      pending.map((a) => [a.referenceNumber, a.result]),
      [[holding.attemptInFlight, 'pending']],
    );
    // The second waits a moment for the holder to settle, then is refused with the state as it is.
    await assert.rejects(
      payWith(ctx, id, CARDS.success),
      (e: unknown) =>
        e instanceof AttemptRefused &&
        e.message === ATTEMPT_IN_PROGRESS &&
        e.transaction.state === 'created' &&
        e.transaction.attemptInFlight === holding.attemptInFlight,
    );
    held.release();
    assert.equal((await first).transaction.state, 'paid');
    const row = await tx(id);
    assert.equal((await attemptsOf(row.id)).length, 1, 'the second attempt never reached the gateway');
    assert.deepEqual(await eventNames(row.id), ['created', 'paid']);
  });

  it('the gateway is asked for the stored amount', async () => {
    const { body } = await createTransaction(ctx, w.apiKey, { amount: '12.345' });
    await payWith(ctx, body.session_id, CARDS.success);
    const [attempt] = await attemptsOf((await tx(body.session_id)).id);
    assert.equal(Number(attempt.amount), 12.345);
    assert.equal(attempt.currencyCode, 'KWD');
  });

  it('open: 404 for another payment method; open of a payable transaction past its deadline expires it (contract §7)', async () => {
    const { body } = await createTransaction(ctx, w.apiKey);
    await assert.rejects(payments.open(body.session_id, 'sandbox-auth'), NotFound);
    await ctx.dataSource
      .getRepository(Transaction)
      .update({ sessionId: body.session_id }, { expiresAt: new Date(Date.now() - 1000) });
    assert.equal((await payments.open(body.session_id)).transaction.state, 'expired');
    assert.deepEqual(await eventNames((await tx(body.session_id)).id), ['created', 'expired']);
    await assert.rejects(
      payWith(ctx, body.session_id, CARDS.success),
      (e: unknown) => e instanceof AttemptRefused && e.transaction.state === 'expired',
    );
  });

  it('reconcile settles an attempt a crash left unsettled, once (contract §17)', async () => {
    const { body } = await createTransaction(ctx, w.apiKey);
    await leaveCrashedAttempt(ctx.dataSource, body.session_id, {
      gatewaySaw: 'success',
      stored: null,
      ageSeconds: 3600,
    });
    const settlement = ctx.get(AttemptSettlement);
    assert.deepEqual(await settlement.reconcile(), { settled: 1, released: 0, left: 0 });
    assert.deepEqual(await settlement.reconcile(), { settled: 0, released: 0, left: 0 });
    const row = await tx(body.session_id);
    assert.equal(row.state, 'paid');
    assert.equal(row.attemptInFlight, null);
    assert.deepEqual(await eventNames(row.id), ['created', 'paid']);
  });

  it('reconcile moves its window on: older attempts it cannot finish do not starve a newer one', async () => {
    const settlement = ctx.get(AttemptSettlement);
    const busy = (r: { settled: number; released: number }) => r.settled + r.released > 0;
    while (busy(await settlement.reconcile(new Date(), 1000))); // a clean slate
    const stuck: string[] = [];
    for (const ageSeconds of [7200, 7100, 7000]) {
      const { body } = await createTransaction(ctx, w.apiKey);
      const reference = await leaveCrashedAttempt(ctx.dataSource, body.session_id, {
        gatewaySaw: 'success',
        stored: null,
        ageSeconds,
      });
      adapter.unreachable.add(reference);
      stuck.push(reference);
    }
    const { body } = await createTransaction(ctx, w.apiKey);
    await leaveCrashedAttempt(ctx.dataSource, body.session_id, {
      gatewaySaw: 'success',
      stored: null,
      ageSeconds: 3600,
    });
    try {
      // A window of 2: the two oldest first (left), then the third and the newer one, which settles.
      assert.deepEqual(await settlement.reconcile(new Date(), 2), { settled: 0, released: 0, left: 2 });
      assert.deepEqual(await settlement.reconcile(new Date(), 2), { settled: 1, released: 0, left: 1 });
      assert.equal((await tx(body.session_id)).state, 'paid');
      // Past the newest, it starts over from the oldest.
      assert.deepEqual(await settlement.reconcile(new Date(), 2), { settled: 0, released: 0, left: 2 });
    } finally {
      stuck.forEach((reference) => adapter.unreachable.delete(reference));
      while (busy(await settlement.reconcile(new Date(), 1000)));
    }
  });
});
