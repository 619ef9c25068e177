import Decimal from 'decimal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FieldErrors,
  NotFound,
  PermissionDenied,
  PreconditionFailed,
  StateConflict,
} from '../../src/common/errors/domain-errors';
import { OutboxEvent } from '../../src/events/event.entity';
import { Transaction } from '../../src/transactions/transaction.entity';
import { TransactionsModule } from '../../src/transactions/transactions.module';
import { TransactionsService } from '../../src/transactions/transactions.service';
import { PaymentsModule } from '../../src/payments/payments.module';
import { transactionBody } from '../factories/transaction.factory';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import {
  CARDS,
  createTransaction,
  jsonBody,
  payWith,
  seedServiceWorld,
  type ServiceWorld,
} from '../setup/service-world';

/** TransactionsService: create/update/retrieve rules at the service boundary (contract §4, §5). */
describe('TransactionsService', () => {
  let ctx: ServiceContext;
  let w: ServiceWorld;
  let service: TransactionsService;
  const row = (sessionId: string) => ctx.dataSource.getRepository(Transaction).findOneByOrFail({ sessionId });
  const eventsOf = (transactionId: string) =>
    ctx.dataSource.getRepository(OutboxEvent).find({ where: { transactionId }, order: { sequence: 'ASC' } });

  before(async () => {
    ctx = await createServiceContext({ imports: [TransactionsModule, PaymentsModule] });
    w = await seedServiceWorld(ctx);
    service = ctx.get(TransactionsService);
  });
  after(() => ctx.close());

  describe('create (contract §4)', () => {
    it('stores a created transaction with its deadline and records its `created` event in the same unit', async () => {
      const { body, etag } = await createTransaction(ctx, w.apiKey, { expiration_time: '00:30:00' });
      assert.equal(body.state, 'created');
      assert.equal(body.amount, '86.000');
      assert.equal(etag, '"1"');
      const tx = await row(body.session_id);
      assert.equal(tx.state, 'created');
      assert.equal(tx.version, 1);
      assert.equal(tx.expiresAt.getTime() - tx.createdAt.getTime(), 30 * 60 * 1000);
      assert.equal(tx.apiKeyId, w.apiKey.kind === 'api-key' ? w.apiKey.apiKeyId : -1);
      const events = await eventsOf(tx.id);
      assert.deepEqual(
        events.map((e) => [e.event, e.sequence]),
        [['created', 1]],
      );
    });

    it('formats the amount with the currency digits (KWD 3, JPY 0)', async () => {
      assert.equal((await createTransaction(ctx, w.apiKey, { amount: '5' })).body.amount, '5.000');
      assert.equal(
        (await createTransaction(ctx, w.apiKey, { amount: '1200', currency_code: 'JPY' })).body.amount,
        '1200',
      );
    });

    it('refuses invalid fields with FieldErrors and writes nothing', async () => {
      const before = await ctx.dataSource.getRepository(Transaction).count();
      await assert.rejects(
        createTransaction(ctx, w.apiKey, { amount: '0' }),
        (e: unknown) => e instanceof FieldErrors && 'amount' in e.errors,
      );
      await assert.rejects(
        createTransaction(ctx, w.apiKey, { currency_code: 'EUR' }),
        (e: unknown) => e instanceof FieldErrors && 'currency_code' in e.errors,
      );
      assert.equal(await ctx.dataSource.getRepository(Transaction).count(), before);
    });

    it('a user may only use its own gateway codes (contract §3)', async () => {
      await assert.rejects(
        createTransaction(ctx, w.merchant, { pg_codes: ['sandbox-auth'] }),
        (e: unknown) => e instanceof PermissionDenied || e instanceof FieldErrors,
      );
      const { body } = await createTransaction(ctx, w.merchant);
      assert.deepEqual(body.pg_codes, ['sandbox']);
    });

    it('takes the operation from the gateway: authorize or purchase', async () => {
      const auth = await createTransaction(ctx, w.apiKey, { pg_codes: ['sandbox-auth'] });
      assert.equal((await row(auth.body.session_id)).operation, 'authorize');
      const purchase = await createTransaction(ctx, w.apiKey);
      assert.equal((await row(purchase.body.session_id)).operation, 'purchase');
    });

    it('one live transaction per order_no: a second is refused under order_no', async () => {
      await createTransaction(ctx, w.apiKey, { order_no: 'svc-order-1' });
      await assert.rejects(
        createTransaction(ctx, w.apiKey, { order_no: 'svc-order-1' }),
        (e: unknown) => e instanceof FieldErrors && 'order_no' in e.errors,
      );
    });
  });

  describe('update (contract §4, §16)', () => {
    it('partial: sent fields change, the others stay; the version and ETag move on', async () => {
      const created = await createTransaction(ctx, w.apiKey, { customer_email: 'a@example.com' });
      const id = created.body.session_id;
      const updated = await service.update(id, w.apiKey, jsonBody({ amount: '10.5' }), { mode: 'partial' });
      assert.equal(updated.body.amount, '10.500');
      assert.equal(updated.body.customer_email, 'a@example.com');
      assert.equal(updated.etag, '"2"');
      const tx = await row(id);
      assert.equal(tx.version, 2);
      assert.equal(tx.customerEmail, 'a@example.com');
    });

    it('full: optional fields left out go back to their defaults', async () => {
      const created = await createTransaction(ctx, w.apiKey, { customer_email: 'b@example.com' });
      const id = created.body.session_id;
      const replaced = await service.update(id, w.apiKey, jsonBody(transactionBody({ amount: '3' })), {
        mode: 'full',
      });
      assert.equal(replaced.body.amount, '3.000');
      assert.equal((await row(id)).customerEmail, '');
    });

    it('If-Match: the current ETag (or *) lets the write through; a stale one is 412 and changes nothing', async () => {
      const created = await createTransaction(ctx, w.apiKey);
      const id = created.body.session_id;
      const first = await service.update(id, w.apiKey, jsonBody({ amount: '2' }), {
        mode: 'partial',
        ifMatch: created.etag,
      });
      assert.equal(first.etag, '"2"');
      await assert.rejects(
        service.update(id, w.apiKey, jsonBody({ amount: '4' }), { mode: 'partial', ifMatch: created.etag }),
        PreconditionFailed,
      );
      await assert.rejects(
        service.update(id, w.apiKey, jsonBody({ amount: '4' }), { mode: 'partial', ifMatch: 'W/"2"' }),
        PreconditionFailed,
        'a weak tag never matches If-Match',
      );
      const tx = await row(id);
      assert.equal(new Decimal(tx.amount).toFixed(3), '2.000');
      assert.equal(tx.version, 2);
      const star = await service.update(id, w.apiKey, jsonBody({ amount: '5' }), {
        mode: 'partial',
        ifMatch: '*',
      });
      assert.equal(star.body.amount, '5.000');
    });

    it('two updates from the same ETag: one wins, the other is 412 (contract §17)', async () => {
      const created = await createTransaction(ctx, w.apiKey);
      const id = created.body.session_id;
      const results = await Promise.allSettled(
        ['7', '8'].map((amount) =>
          service.update(id, w.apiKey, jsonBody({ amount }), { mode: 'partial', ifMatch: created.etag }),
        ),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const refused = results.find((r) => r.status === 'rejected');
      assert.ok(refused && refused.reason instanceof PreconditionFailed);
      assert.equal((await row(id)).version, 2);
    });

    it('a transaction no longer payable cannot be updated (409, contract §5)', async () => {
      const created = await createTransaction(ctx, w.apiKey);
      const id = created.body.session_id;
      await payWith(ctx, id, CARDS.success);
      await assert.rejects(
        service.update(id, w.apiKey, jsonBody({ amount: '1' }), { mode: 'partial' }),
        StateConflict,
      );
      assert.equal(new Decimal((await row(id)).amount).toFixed(3), '86.000');
    });

    it('a failed transaction is still payable and may be updated', async () => {
      const created = await createTransaction(ctx, w.apiKey);
      const id = created.body.session_id;
      await payWith(ctx, id, CARDS.declined);
      const updated = await service.update(id, w.apiKey, jsonBody({ amount: '1' }), { mode: 'partial' });
      assert.equal(updated.body.state, 'failed');
      assert.equal(updated.body.amount, '1.000');
    });
  });

  describe('retrieve', () => {
    it('retrieveUnlessCurrent: no representation when If-None-Match names the current ETag (weak too)', async () => {
      const created = await createTransaction(ctx, w.apiKey);
      const id = created.body.session_id;
      assert.deepEqual(await service.retrieveUnlessCurrent(id, '"1"'), { etag: '"1"', view: null });
      assert.equal((await service.retrieveUnlessCurrent(id, 'W/"1"')).view, null);
      const stale = await service.retrieveUnlessCurrent(id, '"0"');
      assert.equal(stale.view?.body.session_id, id);
      assert.equal((await service.retrieveUnlessCurrent(id, undefined)).view?.etag, '"1"');
    });

    it('get: unknown, malformed and other users’ gateways are all NotFound (contract §3)', async () => {
      await assert.rejects(service.get('0'.repeat(40)), NotFound);
      await assert.rejects(service.get('not-a-session-id'), NotFound);
      const onAuth = await createTransaction(ctx, w.apiKey, { pg_codes: ['sandbox-auth'] });
      await assert.rejects(service.get(onAuth.body.session_id, w.merchant), NotFound);
      assert.equal((await service.get(onAuth.body.session_id, w.apiKey)).pgCode, 'sandbox-auth');
    });

    it('getByOrderNo: surrounding spaces are trimmed; the live transaction is preferred', async () => {
      const created = await createTransaction(ctx, w.apiKey, { order_no: 'svc-lookup' });
      const found = await service.getByOrderNo('  svc-lookup ', w.apiKey);
      assert.equal(found.sessionId, created.body.session_id);
      await assert.rejects(service.getByOrderNo('SVC-LOOKUP', w.apiKey), NotFound);
      await assert.rejects(service.getByOrderNo('   ', w.apiKey), NotFound);
    });
  });
});
