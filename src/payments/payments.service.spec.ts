import 'reflect-metadata';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { Test } from '@nestjs/testing';
import { PermissionDenied } from '../common/errors/domain-errors';
import type { Gateway } from '../gateways/gateway.entity';
import { UnitOfWork } from '../database/unit-of-work';
import { GatewaysService } from '../gateways/gateways.service';
import { CardFingerprints } from '../cards/card-fingerprints';
import { numberOnlyDefaults, readNewCard } from '../cards/card-input';
import { CardsRepository } from '../cards/cards.repository';
import type { Transaction } from '../transactions/transaction.entity';
import { TransactionsService } from '../transactions/transactions.service';
import { TransitionService } from '../transactions/transition.service';
import type { AttemptOutcome, GatewayAdapter } from './adapters/gateway-adapter';
import { GatewayAdapters } from './adapters/gateway-adapters';
import { AttemptSettlement } from './attempt-settlement';
import type { PaymentAttempt } from './payment-attempt.entity';
import { PaymentAttemptsRepository, type StoredAnswer } from './payment-attempts.repository';
import { AttemptPending, AttemptRefused, PaymentsService } from './payments.service';
import { AppConfig } from '../config/app-config';

const CARD = { card: readNewCard({ card: '4111 1111 1111 1111' }, numberOnlyDefaults()), save: false };

/** What happened, in order: the claim, the gateway call, the stored answer, the settlement. */
type Step = { step: 'claim' | 'pay' | 'inquire' | 'store' | 'settle'; detail?: unknown };

/**
 * The service tier of contract §17's payment promise: PaymentsService with its collaborators replaced
 * by fakes that note each step, so the order (claim → gateway → stored answer → settle) and the
 * failure paths are checked without a database or a gateway.
 */
describe('PaymentsService: a gateway outcome is never lost', () => {
  let steps: Step[];
  let tx: Transaction;
  let gateway: Gateway;
  let adapter: { pay: GatewayAdapter['pay']; inquire: GatewayAdapter['inquire'] };
  let settleFails: boolean;
  let payments: PaymentsService;

  beforeEach(async () => {
    steps = [];
    settleFails = false;
    tx = {
      id: '1',
      sessionId: 'a'.repeat(40),
      state: 'created',
      pgCode: 'sandbox',
      amount: '86.500',
      currencyCode: 'KWD',
      operation: 'purchase',
      attemptInFlight: null,
      expiresAt: new Date(Date.now() + 3_600_000),
    } as Transaction;
    gateway = { code: 'sandbox', type: 'sandbox' } as Gateway;
    adapter = {
      pay: () => Promise.resolve({ result: 'success', responseCode: '00' }),
      inquire: () => Promise.resolve(null),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        PaymentsService,
        { provide: CardsRepository, useValue: {} },
        { provide: CardFingerprints, useValue: {} },
        { provide: AppConfig, useValue: { publicBaseUrl: 'http://127.0.0.1:3000' } },
        // One run of each unit, on a manager the fakes ignore.
        { provide: UnitOfWork, useValue: { run: (work: (manager: unknown) => unknown) => work({}) } },
        { provide: TransactionsService, useValue: { get: () => Promise.resolve(tx) } },
        { provide: GatewaysService, useValue: { findByCode: () => Promise.resolve(gateway) } },
        {
          provide: GatewayAdapters,
          useValue: (() => {
            const driver = {
              name: 'fake',
              flow: 'card_form',
              serves: () => true,

              pay: (input: Parameters<GatewayAdapter['pay']>[0]) => {
                steps.push({ step: 'pay', detail: { amount: input.amount, card: input.card } });
                return adapter.pay(input);
              },
              inquire: (input: Parameters<GatewayAdapter['inquire']>[0]) => {
                steps.push({ step: 'inquire' });
                return adapter.inquire(input);
              },
            };
            return { for: () => driver, bind: () => Promise.resolve({ driver, settings: {} }) };
          })(),
        },
        {
          provide: TransitionService,
          useValue: {
            claim: (_manager: unknown, _id: string, reference: string) => {
              steps.push({ step: 'claim' });
              return Promise.resolve({ ...tx, attemptInFlight: reference });
            },
            expireIfDueIn: () => Promise.resolve({ transaction: tx }),
          },
        },
        {
          provide: PaymentAttemptsRepository,
          useValue: {
            insert: () => Promise.resolve(),
            storeAnswer: (_reference: string, answer: StoredAnswer) => {
              steps.push({ step: 'store', detail: answer });
              return Promise.resolve();
            },
          },
        },
        {
          provide: AttemptSettlement,
          useValue: {
            settle: (_attempt: PaymentAttempt, answer: AttemptOutcome) => {
              steps.push({ step: 'settle', detail: answer.result });
              if (settleFails) return Promise.reject(new Error('database gone'));
              return Promise.resolve({ ...tx, state: answer.result === 'success' ? 'paid' : 'failed' });
            },
            isOverdue: () => false,
            // What the pay path asks after a lost answer goes to the driver's inquiry.
            ask: (bound: { driver: GatewayAdapter }, attempt: PaymentAttempt) =>
              bound.driver.inquire({
                gateway,
                settings: {},
                referenceNumber: attempt.referenceNumber,
                provider: attempt.provider,
              }),
          },
        },
      ],
    }).compile();
    moduleRef.useLogger(false); // the failure paths log errors on purpose
    payments = moduleRef.get(PaymentsService);
  });

  const names = () => steps.map((s) => s.step);

  it('claims, asks the gateway for the stored amount with the digits only, stores the answer, then settles', async () => {
    const result = await payments.attempt(tx.sessionId, { payWith: CARD });
    assert.deepEqual(names(), ['claim', 'pay', 'store', 'settle']);
    assert.deepEqual(steps[1].detail, { amount: '86.500', card: { number: '4111111111111111' } });
    assert.equal(result.transaction.state, 'paid');
    assert.match(result.referenceNumber, /^[0-9A-F]{19}$/);
  });

  it('has the answer stored when settling fails', async () => {
    settleFails = true;
    await assert.rejects(payments.attempt(tx.sessionId, { payWith: CARD }), /database gone/);
    assert.deepEqual(names(), ['claim', 'pay', 'store', 'settle']);
    assert.deepEqual(steps[2].detail, { result: 'success', responseCode: '00' });
  });

  it('asks the gateway what it did when the adapter fails, and stores that', async () => {
    adapter.pay = () => Promise.reject(new Error('connection reset'));
    adapter.inquire = () => Promise.resolve({ result: 'success', responseCode: '00' });
    const result = await payments.attempt(tx.sessionId, { payWith: CARD });
    assert.deepEqual(names(), ['claim', 'pay', 'inquire', 'store', 'settle']);
    assert.equal(result.result, 'success');
  });

  it('never guesses a lost answer: "not received yet" leaves the attempt pending (503 "pending"), nothing stored', async () => {
    // A request the gateway has no record of right after a timeout may still be on its way there
    // (contract §20.1): the reconciler decides once the attempt is overdue, never this request.
    adapter.pay = () => Promise.reject(new Error('connection reset'));
    adapter.inquire = () => Promise.resolve(null);
    const refused = await payments.attempt(tx.sessionId, { payWith: CARD }).then(
      () => assert.fail('the attempt must stay pending'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof AttemptPending);
    assert.equal(refused.status, 503);
    assert.deepEqual(
      { ...(refused.body() as Record<string, unknown>), detail: undefined },
      {
        detail: undefined,
        result: 'pending',
        session_id: tx.sessionId,
        reference_number: refused.referenceNumber,
      },
    );
    assert.deepEqual(names(), ['claim', 'pay', 'inquire']);
  });

  it('leaves the attempt pending (503 "pending", nothing stored) when the gateway cannot be asked either', async () => {
    adapter.pay = () => Promise.reject(new Error('timeout'));
    adapter.inquire = () => Promise.reject(new Error('timeout'));
    await assert.rejects(payments.attempt(tx.sessionId, { payWith: CARD }), AttemptPending);
    assert.deepEqual(names(), ['claim', 'pay', 'inquire']);
  });

  it('never reaches the gateway for a transaction that is not payable, or a production gateway from the test helper', async () => {
    tx.state = 'paid';
    await assert.rejects(payments.attempt(tx.sessionId, { payWith: CARD }), AttemptRefused);
    tx.state = 'created';
    gateway.type = 'production';
    await assert.rejects(
      payments.attempt(tx.sessionId, { payWith: CARD, sandboxOnly: true }),
      PermissionDenied,
    );
    assert.deepEqual(names(), []);
  });
});
