import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from 'typeorm';
import type { EventName } from '../../src/events/event-types';
import type { EventDetails } from '../../src/transactions/events/event-payload';
import { TransactionEvents } from '../../src/transactions/events/transaction-events';
import type { Transaction } from '../../src/transactions/transaction.entity';
import { TransactionsService } from '../../src/transactions/transactions.service';
import {
  type Change,
  type TransitionInput,
  TransitionService,
} from '../../src/transactions/transition.service';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { TransactionDriver } from '../factories/transaction-states';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

/** What a change in a unit of its own came to: the row it left, or the row as it is now. */
type Outcome =
  { applied: true; transaction: Transaction } | { applied: false; transaction: Transaction | null };

interface Recorded {
  sessionId: string;
  state: string;
  version: number;
  event: EventName;
  details: EventDetails;
  inTransaction: boolean;
}

/** The real TransactionEvents, noting each event it records and whether a DB transaction is open. */
class ObservedTransactionEvents extends TransactionEvents {
  readonly recorded: Recorded[] = [];

  override record(
    manager: EntityManager,
    tx: Transaction,
    event: EventName,
    details: EventDetails = {},
  ): Promise<void> {
    this.recorded.push({
      sessionId: tx.sessionId,
      state: tx.state,
      version: tx.version,
      event,
      details,
      inTransaction: manager.queryRunner?.isTransactionActive === true,
    });
    return super.record(manager, tx, event, details);
  }
}

describe('TransitionService: the one way a state changes', () => {
  let t: TestApp;
  let s: Seeded;
  let d: TransactionDriver;
  let transitions: TransitionService;
  let recorded: Recorded[];

  before(async () => {
    t = await startApp({ overrides: [{ provide: TransactionEvents, useClass: ObservedTransactionEvents }] });
    s = await seedBasics(t);
    d = new TransactionDriver(t, s.apiKey);
    transitions = t.app.get(TransitionService);
    const events = t.app.get(TransactionEvents);
    assert.ok(events instanceof ObservedTransactionEvents, 'the override is in place');
    recorded = events.recorded;
  });
  after(() => t.close());

  const eventsOf = (id: string) => recorded.filter((r) => r.sessionId === id);

  /** `step` on a transaction (a row, or a session id read first) in a unit of its own, as a caller runs it. */
  async function inUnit(
    target: Transaction | string,
    step: (manager: EntityManager, tx: Transaction) => Promise<Change | null>,
  ): Promise<Outcome> {
    const rows = t.app.get(TransactionsService);
    const tx = typeof target === 'string' ? await rows.getIncludingDeleted(target) : target;
    const won = await t.app.get(UnitOfWork).run((manager) => step(manager, tx));
    return won
      ? { applied: true, transaction: won.transaction }
      : { applied: false, transaction: await rows.findById(tx.id) };
  }
  const apply = (target: Transaction | string, input: TransitionInput & { details?: EventDetails }) =>
    inUnit(target, (manager, tx) => transitions.applyIn(manager, tx, input));
  const expireIfDue = (target: Transaction | string) =>
    inUnit(target, (manager, tx) => transitions.expireIfDueIn(manager, tx));

  it('writes the new state, bumps the version and records the event inside the same DB transaction', async () => {
    const id = String((await d.create()).session_id);
    const outcome = await apply(id, { trigger: 'cancel', details: { operation: 'cancel' } });
    assert.equal(outcome.applied, true);
    assert.equal(outcome.transaction?.state, 'canceled');
    assert.equal(outcome.transaction?.version, 2);
    const events = eventsOf(id).filter((e) => e.event !== 'created');
    assert.deepEqual(
      events.map((e) => [e.event, e.state, e.version, e.details.operation, e.inTransaction]),
      [['canceled', 'canceled', 2, 'cancel', true]],
    );
  });

  it('emits failed for a gateway error', async () => {
    const id = String((await d.create()).session_id);
    const outcome = await apply(id, {
      trigger: 'attempt_error',
      details: { referenceNumber: 'R1' },
    });
    assert.equal(outcome.transaction?.state, 'error');
    assert.deepEqual(
      eventsOf(id)
        .filter((e) => e.event !== 'created')
        .map((e) => [e.event, e.details.referenceNumber]),
      [['failed', 'R1']],
    );
  });

  it('refuses a change the table does not allow, writes nothing, and returns the row as it is', async () => {
    const id = await d.inState('paid');
    const before = eventsOf(id).length;
    const outcome = await apply(id, { trigger: 'cancel' });
    assert.equal(outcome.applied, false);
    assert.equal(outcome.transaction?.state, 'paid');
    assert.equal(eventsOf(id).length, before);
  });

  it('never overwrites a newer state with a stale row', async () => {
    const id = String((await d.create()).session_id);
    const stale = await t.app.get(TransactionsService).get(id);
    assert.equal((await apply(stale, { trigger: 'attempt_paid' })).applied, true);
    const second = await apply(stale, { trigger: 'cancel' });
    assert.equal(second.applied, false);
    assert.equal(second.transaction?.state, 'paid');
  });

  it('honours a version guard, so read-modify-write of amounts loses no update', async () => {
    const id = await d.inState('paid');
    const row = await t.app.get(TransactionsService).get(id);
    const first = await apply(row, {
      trigger: 'refund_partial',
      version: row.version,
      amounts: { refundedAmount: '1' },
    });
    assert.equal(first.applied, true);
    const second = await apply(row, {
      trigger: 'refund_partial',
      version: row.version,
      amounts: { refundedAmount: '1' },
    });
    assert.equal(second.applied, false);
    assert.equal((await d.get(id)).refunded_amount, '1.000');
  });

  it('lets exactly one of many concurrent transitions win', async () => {
    const id = String((await d.create()).session_id);
    const triggers = [
      'attempt_paid',
      'cancel',
      'expire',
      'attempt_authorized',
      'cancel',
      'attempt_paid',
    ] as const;
    const outcomes = await Promise.all(triggers.map((trigger) => apply(id, { trigger })));
    const winners = outcomes.filter((o) => o.applied);
    assert.equal(winners.length, 1);
    const winner = winners[0];
    assert.ok(winner.applied);
    assert.equal((await d.get(id)).state, winner.transaction.state);
    assert.equal(winner.transaction.version, 2);
    assert.equal(eventsOf(id).filter((e) => e.event !== 'created').length, 1);
    for (const loser of outcomes.filter((o) => !o.applied)) {
      assert.equal(loser.transaction?.state, winner.transaction.state);
    }
  });

  it('expires only once the deadline has passed, releasing the order_no', async () => {
    const tx = await d.create({ expiration_time: '00:00:01', order_no: 'exp-1' });
    const id = String(tx.session_id);
    const early = await expireIfDue(id);
    assert.equal(early.applied, false);
    assert.equal(early.transaction?.state, 'created');
    await sleep(1100);
    const due = await expireIfDue(id);
    assert.equal(due.applied, true);
    assert.equal(due.transaction?.state, 'expired');
    assert.equal(due.transaction?.liveOrderNo, null);
    assert.equal(due.transaction?.orderNo, 'exp-1');
    assert.equal((await expireIfDue(id)).applied, false);
    await d.create({ order_no: 'exp-1' });
  });
});
