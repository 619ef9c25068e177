// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../../../src/gateways/gateway.entity';
import {
  type DriverSettingsValues,
  type PayInput,
  ProviderCallFailed,
  UnverifiedNotification,
} from '../../../src/payments/adapters/gateway-adapter';
import { StripeDriver } from '../../../src/payments/drivers/stripe/stripe-driver';
import { StripeClient } from '../../../src/payments/providers/stripe/stripe-client';
import { StripeSimulator } from './stripe-simulator';

const GATEWAY = { code: 'stripe', pg: 'stripe', name: 'Stripe' } as Gateway;
const RETURN = 'https://checkout.example/b/checkout/v1/gateways/stripe/return/?ref=';

/** Resolves to the ProviderCallFailed `promise` rejects with; fails when it resolves. */
async function callFailed(promise: Promise<unknown>): Promise<ProviderCallFailed> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderCallFailed, `not a ProviderCallFailed: ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded');
}

/**
 * The `stripe` driver itself against the Stripe simulator (contract §20.1), below the pay path:
 * what each seam call asks Stripe and answers — a lost charge learnt by sending it again under its
 * key, never by a search; 3-D Secure for a customer-present saved card; refunds read back; calls
 * bounded by the request's deadline; Stripe's errors as ProviderCallFailed; notifications that are
 * verified, then only name the attempt.
 */
describe('Stripe driver against the simulator', () => {
  let sim: StripeSimulator;
  let settings: DriverSettingsValues;
  let customer: string;
  const driver = new StripeDriver();
  let refs = 0;
  const reference = () => `DRV${Date.now()}${++refs}`.slice(-19);

  before(async () => {
    sim = await StripeSimulator.start();
    sim.searchLagMs = 60_000; // https://docs.stripe.com/search#data-freshness
    settings = {
      secret_key: sim.secretKey,
      webhook_secret: sim.webhookSecret,
      api_base_url: sim.baseUrl,
      timeout_ms: 1000,
    };
    const client = new StripeClient({ secret_key: sim.secretKey, api_base_url: sim.baseUrl });
    customer = (await client.createCustomer({}, `driver-spec-${Date.now()}`)).id;
  });
  after(() => sim.stop());

  /** A saved-card charge of a test PaymentMethod (https://docs.stripe.com/testing#cards). */
  const payment = (
    paymentMethod: string,
    extra: Partial<PayInput> = {},
  ): Omit<PayInput, 'gateway' | 'settings'> => ({
    referenceNumber: reference(),
    amount: '12.340',
    currencyCode: 'KWD',
    operation: 'purchase',
    card: { gatewayToken: `${customer}/${paymentMethod}` },
    saveCard: false,
    ...extra,
  });
  const call = { gateway: GATEWAY };

  describe('a saved-card charge whose answer is lost', () => {
    it('throws (unknown), and inquiry sends the same charge under the same key: Stripe’s stored answer, charged once, never a search', async () => {
      const charge = payment('pm_card_visa');
      sim.delayAnswers(1500);
      const lost = await callFailed(driver.pay({ ...call, settings, ...charge }));
      assert.equal(lost.details.retryable, true);
      assert.equal(sim.intentsWithReference(charge.referenceNumber).length, 1, 'Stripe charged');
      const searches = sim.apiRequests('GetPaymentIntentsSearch').length;
      const known = await driver.inquire({
        ...call,
        settings,
        referenceNumber: charge.referenceNumber,
        payment: charge,
      });
      assert.ok(known && known !== 'open');
      assert.deepEqual([known.result, known.responseCode, known.amount], ['success', 'succeeded', '12.340']);
      const sent = sim
        .apiRequests('PostPaymentIntents')
        .filter((r) => r.idempotencyKey === `${charge.referenceNumber}-charge`);
      assert.deepEqual(
        sent.map((r) => r.replayed),
        [false, true],
      );
      assert.equal(sim.apiRequests('GetPaymentIntentsSearch').length, searches, 'no search');
      assert.equal(sim.intentsWithReference(charge.referenceNumber).length, 1, 'charged once');
    });

    it('a connection closed after the work, twice (the SDK retries once by itself): still one charge', async () => {
      const charge = payment('pm_card_visa');
      sim.dropAnswers(2);
      await callFailed(driver.pay({ ...call, settings, ...charge }));
      const known = await driver.inquire({
        ...call,
        settings,
        referenceNumber: charge.referenceNumber,
        payment: charge,
      });
      assert.equal(known && known !== 'open' ? known.result : known, 'success');
      assert.equal(sim.intentsWithReference(charge.referenceNumber).length, 1);
    });

    it('a stored decline is a decline; a stored refusal means nothing was charged (null)', async () => {
      const declined = payment('pm_card_chargeDeclinedInsufficientFunds');
      sim.delayAnswers(1500);
      await callFailed(driver.pay({ ...call, settings, ...declined }));
      const known = await driver.inquire({
        ...call,
        settings,
        referenceNumber: declined.referenceNumber,
        payment: declined,
      });
      assert.ok(known && known !== 'open');
      assert.deepEqual([known.result, known.responseCode], ['declined', 'insufficient_funds']);

      const refused = payment('pm_missing');
      const error = await callFailed(driver.pay({ ...call, settings, ...refused }));
      assert.deepEqual(
        [error.details.status, error.details.code, error.details.retryable],
        [404, 'resource_missing', false],
      );
      assert.equal(
        await driver.inquire({
          ...call,
          settings,
          referenceNumber: refused.referenceNumber,
          payment: refused,
        }),
        null,
      );
    });

    it('without the charge and without a session, a search that finds nothing proves nothing: unknown, never null', async () => {
      const charge = payment('pm_card_visa');
      sim.delayAnswers(1500);
      await callFailed(driver.pay({ ...call, settings, ...charge }));
      const error = await callFailed(
        driver.inquire({ ...call, settings, referenceNumber: charge.referenceNumber }),
      );
      assert.equal(error.details.retryable, true);
      sim.searchLagMs = 0;
      try {
        const found = await driver.inquire({ ...call, settings, referenceNumber: charge.referenceNumber });
        assert.equal(
          found && found !== 'open' ? found.result : found,
          'success',
          'a search that finds it is read by id',
        );
      } finally {
        sim.searchLagMs = 60_000;
      }
    });
  });

  describe('a saved card picked by the customer (customer-initiated)', () => {
    it('asks for 3-D Secure by redirect, and the return reads the PaymentIntent', async () => {
      const charge = payment('pm_card_authenticationRequired', {
        card: { gatewayToken: `${customer}/pm_card_authenticationRequired`, cardholderPresent: true },
        returnUrl: `${RETURN}X1`,
      });
      const answer = await driver.pay({ ...call, settings, ...charge });
      assert.ok('url' in answer, JSON.stringify(answer));
      assert.equal(answer.result, 'redirect');
      const params = sim.apiRequests('PostPaymentIntents').at(-1)!.params!;
      assert.deepEqual([params.off_session, params.return_url], [false, `${RETURN}X1`]);
      const provider = answer.provider;
      const input = { ...call, settings, referenceNumber: charge.referenceNumber, provider, params: {} };
      assert.equal(await driver.complete(input), 'left', 'back without authenticating');
      assert.equal(
        await driver.inquire({
          ...call,
          settings,
          referenceNumber: charge.referenceNumber,
          provider,
          payment: charge,
        }),
        'open',
        'the replayed first answer is requires_action, and so is the PaymentIntent now',
      );
      sim.authenticate(provider.payment_intent, 'complete');
      const done = await driver.complete(input);
      assert.equal(done && done !== 'open' && done !== 'left' ? done.result : done, 'success');
      const replayed = await driver.inquire({
        ...call,
        settings,
        referenceNumber: charge.referenceNumber,
        payment: charge,
      });
      assert.equal(
        replayed && replayed !== 'open' ? replayed.result : replayed,
        'success',
        'read as it is now',
      );
    });

    it('a failed authentication is a decline, its PaymentIntent canceled; an abandoned one is canceled by abandon', async () => {
      const failing = payment('pm_card_authenticationRequired', {
        card: { gatewayToken: `${customer}/pm_card_authenticationRequired`, cardholderPresent: true },
        returnUrl: `${RETURN}X2`,
      });
      const first = await driver.pay({ ...call, settings, ...failing });
      assert.ok('url' in first);
      sim.authenticate(first.provider.payment_intent, 'fail');
      const back = await driver.complete({
        ...call,
        settings,
        referenceNumber: failing.referenceNumber,
        provider: first.provider,
        params: {},
      });
      assert.ok(back && back !== 'open' && back !== 'left');
      assert.deepEqual([back.result, back.responseCode], ['declined', 'authentication_failure']);
      assert.equal(sim.paymentIntent(first.provider.payment_intent)!.status, 'canceled');

      const left = payment('pm_card_authenticationRequired', {
        card: { gatewayToken: `${customer}/pm_card_authenticationRequired`, cardholderPresent: true },
        returnUrl: `${RETURN}X3`,
      });
      const second = await driver.pay({ ...call, settings, ...left });
      assert.ok('url' in second);
      assert.equal(
        await driver.abandon({
          ...call,
          settings,
          referenceNumber: left.referenceNumber,
          provider: second.provider,
        }),
        null,
      );
      assert.equal(sim.paymentIntent(second.provider.payment_intent)!.status, 'canceled');
    });

    it('without a way back (no return URL) a card that needs authentication is declined, its PaymentIntent canceled', async () => {
      const charge = payment('pm_card_authenticationRequired', {
        card: { gatewayToken: `${customer}/pm_card_authenticationRequired`, cardholderPresent: true },
      });
      const answer = await driver.pay({ ...call, settings, ...charge });
      assert.ok(!('url' in answer));
      assert.deepEqual([answer.result, answer.responseCode], ['declined', 'authentication_required']);
      assert.equal(sim.paymentIntent(answer.provider!.payment_intent)!.status, 'canceled');
    });

    it('auto-debit stays merchant-initiated: off_session, declined authentication_required', async () => {
      const answer = await driver.pay({ ...call, settings, ...payment('pm_card_authenticationRequired') });
      assert.ok(!('url' in answer));
      assert.deepEqual([answer.result, answer.responseCode], ['declined', 'authentication_required']);
      const params = sim.apiRequests('PostPaymentIntents').at(-1)!.params!;
      assert.deepEqual([params.off_session, params.return_url], [true, undefined]);
    });
  });

  describe('time limits and Stripe’s errors', () => {
    it('a call bounded by the request’s deadline gives up at the deadline, before timeout_ms', async () => {
      sim.delayAnswers(900);
      const started = Date.now();
      await callFailed(
        driver.pay({ ...call, settings, ...payment('pm_card_visa'), deadline: Date.now() + 250 }),
      );
      const took = Date.now() - started;
      assert.ok(took < 700, `gave up after ${took} ms`);
    });

    it('Stripe’s error answers are ProviderCallFailed with its status and code: 401/403/409 final, 429/5xx retryable', async () => {
      const session = await driver.start({
        ...call,
        settings,
        referenceNumber: reference(),
        amount: '1.000',
        currencyCode: 'KWD',
        operation: 'purchase',
        description: 'Order',
        returnUrl: `${RETURN}S`,
        cancelUrl: `${RETURN}S&cancel=1`,
        notifyUrl: 'https://checkout.example/notify/',
      });
      for (const [status, retryable] of [
        [401, false],
        [403, false],
        [409, false],
        [429, true],
        [500, true],
      ] as const) {
        sim.failNext(1, status);
        const error = await callFailed(
          driver.inquire({
            ...call,
            settings,
            referenceNumber: 'r',
            provider: session.provider,
            deadline: Date.now() + 900,
          }),
        );
        assert.deepEqual(
          [error.details.status, error.details.retryable],
          [status, retryable],
          String(status),
        );
        assert.doesNotMatch(error.message, /sk_test_[A-Za-z0-9]{8}/, 'never the key');
      }
      assert.equal(
        await driver.inquire({ ...call, settings, referenceNumber: 'r', provider: session.provider }),
        'open',
      );
    });
  });

  describe('refunds, read back', () => {
    const paid = async () => {
      const charge = payment('pm_card_visa');
      const answer = await driver.pay({ ...call, settings, ...charge });
      assert.ok(!('url' in answer) && answer.result === 'success');
      return { reference: charge.referenceNumber, provider: answer.provider! };
    };
    const refund = (
      target: { reference: string; provider: Record<string, string> },
      operationKey: string,
      extra = {},
    ) =>
      driver.followUp({
        ...call,
        settings,
        operation: 'refund',
        referenceNumber: target.reference,
        provider: target.provider,
        amount: '2.000',
        currencyCode: 'KWD',
        partial: true,
        operationKey,
        ...extra,
      });

    it('pending stays unknown, also when asked again; once succeeded it is a success, and Stripe refunded once', async () => {
      const target = await paid();
      sim.refundsPending = true;
      try {
        assert.deepEqual(await refund(target, 'op-a'), { result: 'unknown' });
      } finally {
        sim.refundsPending = false;
      }
      assert.deepEqual(await refund(target, 'op-a', { repeat: true }), { result: 'unknown' });
      const [created] = sim.refundsOf(target.provider.payment_intent);
      sim.settleRefund(created.id, 'succeeded');
      assert.deepEqual(await refund(target, 'op-a', { repeat: true }), { result: 'success' });
      assert.equal(sim.refundsOf(target.provider.payment_intent).length, 1);
      assert.equal(
        sim.apiRequests('PostRefunds').filter((r) => r.idempotencyKey?.endsWith('-op-a')).length,
        1,
        'created once, then read back',
      );
    });

    it('failed or canceled → failed with Stripe’s reason; an amount Stripe cannot move → failed, nothing sent', async () => {
      const target = await paid();
      sim.refundsPending = true;
      try {
        await refund(target, 'op-b');
        await refund(target, 'op-c');
      } finally {
        sim.refundsPending = false;
      }
      const [b, c] = sim.refundsOf(target.provider.payment_intent);
      sim.settleRefund(b.id, 'failed', 'insufficient_funds');
      sim.settleRefund(c.id, 'canceled');
      const failed = await refund(target, 'op-b', { repeat: true });
      assert.equal(failed.result, 'failed');
      assert.match(String(failed.message), /failed \(insufficient_funds\)/);
      assert.equal((await refund(target, 'op-c', { repeat: true })).result, 'failed');
      const before = sim.apiRequests('PostRefunds').length;
      const odd = await refund(target, 'op-d', { amount: '0.005' });
      assert.equal(odd.result, 'failed');
      assert.match(String(odd.message), /multiples of 0\.010/);
      assert.equal(sim.apiRequests('PostRefunds').length, before, 'nothing sent');
    });

    it('no answer is unknown; an error answer is ProviderCallFailed', async () => {
      const target = await paid();
      sim.delayAnswers(1500);
      assert.deepEqual(await refund(target, 'op-e'), { result: 'unknown' });
      sim.failNext(1, 401);
      const error = await callFailed(refund(target, 'op-f'));
      assert.deepEqual([error.details.status, error.details.retryable], [401, false]);
    });
  });

  describe('notifications', () => {
    const notify = (body: string, signature = sim.signature(body)) =>
      driver.notification({
        ...call,
        settings,
        rawBody: body,
        headers: { 'stripe-signature': signature },
        returnUrl: 'https://checkout.example/return/',
      });
    const event = (type: string, object: unknown) =>
      JSON.stringify({ id: 'evt_1', object: 'event', type, data: { object } });

    it('an empty v1=, a wrong or missing signature, a signed body that is not an event: unverified', async () => {
      const ts = Math.floor(Date.now() / 1000);
      const body = event('payment_intent.succeeded', { id: 'pi_1' });
      for (const header of [`t=${ts},v1=`, `t=${ts}`, '', `t=${ts},v1=${'0'.repeat(64)}`])
        await assert.rejects(notify(body, header), UnverifiedNotification, header);
      for (const raw of ['null', '[]', '7', '{}'])
        await assert.rejects(notify(raw), UnverifiedNotification, raw);
      const unusable = { ...settings, api_base_url: `${sim.baseUrl}/v1` };
      await assert.rejects(
        driver.notification({ ...call, settings: unusable, rawBody: body, headers: {}, returnUrl: '' }),
        UnverifiedNotification,
        'settings that cannot make a client verify nothing (never a 5xx)',
      );
    });

    it('names the attempt (ask) and keeps the PaymentIntent; ignores the rest, malformed objects included', async () => {
      assert.deepEqual(
        await notify(event('checkout.session.completed', { id: 'cs_1', client_reference_id: 'R1' })),
        {
          kind: 'ask',
          referenceNumber: 'R1',
        },
      );
      assert.deepEqual(
        await notify(event('checkout.session.expired', { id: 'cs_1', client_reference_id: 'R1' })),
        {
          kind: 'ask',
          referenceNumber: 'R1',
        },
      );
      assert.deepEqual(
        await notify(event('payment_intent.succeeded', { id: 'pi_9', metadata: { reference_number: 'R2' } })),
        { kind: 'ask', referenceNumber: 'R2', provider: { payment_intent: 'pi_9' } },
      );
      for (const ignored of [
        event('payment_intent.succeeded', null),
        event('checkout.session.completed', null),
        event('checkout.session.completed', { client_reference_id: 7 }),
        event('payment_intent.succeeded', { id: 'pi_1', metadata: null }),
        event('refund.updated', { id: 're_1', status: 'succeeded' }),
        event('charge.refunded', { id: 'ch_1' }),
        JSON.stringify({ id: 'evt_2', type: 'payment_intent.succeeded' }),
      ])
        assert.deepEqual(await notify(ignored), { kind: 'ignore' }, ignored);
    });
  });
});
