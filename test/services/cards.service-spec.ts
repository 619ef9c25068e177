import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Card } from '../../src/cards/card.entity';
import { CardsModule } from '../../src/cards/cards.module';
import { CardsService } from '../../src/cards/cards.service';
import { FieldErrors, NotFound } from '../../src/common/errors/domain-errors';
import { GatewaysService } from '../../src/gateways/gateways.service';
import { AutoDebitService } from '../../src/payments/auto-debit.service';
import { PaymentsModule } from '../../src/payments/payments.module';
import { gatewayInput } from '../setup/fixtures';
import { createServiceContext, type ServiceContext } from '../setup/service-context';
import {
  CARDS,
  createTransaction,
  payWith,
  seedServiceWorld,
  type ServiceWorld,
} from '../setup/service-world';

/** A second sandbox card that pays and can be saved (contract §15's "saved, then declined"). */
const OTHER_CARD = '4000 0000 0000 0341';

/** CardsService and saving through PaymentsService (contract §15). */
describe('CardsService', () => {
  let ctx: ServiceContext;
  let w: ServiceWorld;
  let cards: CardsService;
  let customerSeq = 0;
  const customer = () => `svc-customer-${++customerSeq}`;

  /** Pays a new transaction for `customerId` with `card`, saving it. */
  async function saveCard(customerId: string, card: string, overrides: Record<string, unknown> = {}) {
    const { body } = await createTransaction(ctx, w.apiKey, { customer_id: customerId, ...overrides });
    const result = await payWith(ctx, body.session_id, card, true);
    assert.equal(result.result, 'success');
    return body.session_id;
  }

  before(async () => {
    ctx = await createServiceContext({ imports: [PaymentsModule, CardsModule] });
    w = await seedServiceWorld(ctx);
    await ctx.get(GatewaysService).create(gatewayInput({ code: 'no-tokens', tokenizable: false }));
    cards = ctx.get(CardsService);
  });
  after(() => ctx.close());

  it('a successful attempt that saves the card stores one masked card, never the number', async () => {
    const id = customer();
    await saveCard(id, CARDS.success);
    const [card, ...more] = await cards.list(w.apiKey, id, 'sandbox');
    assert.equal(more.length, 0);
    assert.equal(card.number, '**** 1111');
    assert.equal(card.pg_code, 'sandbox');
    assert.ok(card.token.length >= 32);
    const rows = await ctx.dataSource.getRepository(Card).findBy({ customerId: id });
    assert.equal(rows.length, 1);
    assert.equal(JSON.stringify(rows).includes('4111111111111111'), false);
  });

  it('saving the same number again for the customer and gateway keeps one card (fingerprint)', async () => {
    const id = customer();
    await saveCard(id, CARDS.success);
    await saveCard(id, '4111-1111-1111-1111');
    const listed = await cards.list(w.apiKey, id, 'sandbox');
    assert.equal(listed.length, 1);
    // Another customer saving the same number gets a card of their own.
    const other = customer();
    await saveCard(other, CARDS.success);
    const theirs = await cards.list(w.apiKey, other, 'sandbox');
    assert.equal(theirs.length, 1);
    assert.notEqual(theirs[0].token, listed[0].token);
  });

  it('a declined attempt saves nothing; saving needs a customer_id and a tokenizable gateway', async () => {
    const id = customer();
    const { body } = await createTransaction(ctx, w.apiKey, { customer_id: id });
    assert.equal((await payWith(ctx, body.session_id, CARDS.declined, true)).transaction.state, 'failed');
    assert.deepEqual(await cards.list(w.apiKey, id, 'sandbox'), []);
    const anonymous = await createTransaction(ctx, w.apiKey);
    await assert.rejects(
      payWith(ctx, anonymous.body.session_id, CARDS.success, true),
      (e: unknown) => e instanceof FieldErrors && 'save_card' in e.errors,
    );
    const untokenized = await createTransaction(ctx, w.apiKey, { customer_id: id, pg_codes: ['no-tokens'] });
    await assert.rejects(
      payWith(ctx, untokenized.body.session_id, CARDS.success, true),
      (e: unknown) => e instanceof FieldErrors && 'save_card' in e.errors,
    );
  });

  it('lists most recently used first: a charge with a saved card moves it to the front', async () => {
    const id = customer();
    await saveCard(id, CARDS.success);
    await sleep(5);
    await saveCard(id, OTHER_CARD);
    const [newest, older] = await cards.list(w.apiKey, id, 'sandbox');
    assert.deepEqual([newest.number, older.number], ['**** 0341', '**** 1111']);
    await sleep(5);
    const { body } = await createTransaction(ctx, w.apiKey, { customer_id: id });
    await ctx.get(AutoDebitService).charge(w.apiKey, body.session_id, older.token);
    const after = await cards.list(w.apiKey, id, 'sandbox');
    assert.deepEqual(
      after.map((c) => c.number),
      ['**** 1111', '**** 0341'],
    );
  });

  it('with agreement_id: only the card last used for that agreement, else [] (contract §15)', async () => {
    const id = customer();
    const agreement = { id: 'svc-agreement-1', type: 'recurring' };
    await saveCard(id, CARDS.success, { payment_type: 'auto_debit', agreement });
    await saveCard(id, OTHER_CARD);
    const [card, ...more] = await cards.list(w.apiKey, id, 'sandbox', undefined, 'svc-agreement-1');
    assert.equal(more.length, 0);
    assert.equal(card.number, '**** 1111');
    assert.deepEqual(card.agreements, ['svc-agreement-1']);
    assert.deepEqual(await cards.list(w.apiKey, id, 'sandbox', undefined, 'svc-agreement-none'), []);
    assert.equal((await cards.list(w.apiKey, id, 'sandbox')).length, 2);
  });

  it('only cards of gateways the caller may use, of the type asked for, of the pg_codes asked for', async () => {
    const id = customer();
    await saveCard(id, CARDS.success, { pg_codes: ['sandbox-auth'] });
    assert.equal((await cards.list(w.apiKey, id, 'sandbox')).length, 1);
    assert.deepEqual(await cards.list(w.merchant, id, 'sandbox'), [], 'the user may not use sandbox-auth');
    assert.deepEqual(await cards.list(w.apiKey, id, 'production'), []);
    assert.deepEqual(await cards.list(w.apiKey, id, 'sandbox', ['sandbox']), []);
    assert.equal((await cards.list(w.apiKey, id, 'sandbox', ['sandbox-auth'])).length, 1);
  });

  it('remove: the owner’s card goes; another customer’s or an unknown token is NotFound', async () => {
    const id = customer();
    await saveCard(id, CARDS.success);
    const [card] = await cards.list(w.apiKey, id, 'sandbox');
    await assert.rejects(cards.remove(w.apiKey, card.token, 'someone-else', 'sandbox'), NotFound);
    await assert.rejects(cards.remove(w.apiKey, 'x'.repeat(43), id, 'sandbox'), NotFound);
    await assert.rejects(cards.remove(w.apiKey, card.token, id, 'production'), NotFound);
    await cards.remove(w.apiKey, card.token, id, 'sandbox');
    assert.deepEqual(await cards.list(w.apiKey, id, 'sandbox'), []);
    assert.equal(await ctx.dataSource.getRepository(Card).countBy({ customerId: id }), 0);
    await assert.rejects(cards.remove(w.apiKey, card.token, id, 'sandbox'), NotFound);
  });
});
