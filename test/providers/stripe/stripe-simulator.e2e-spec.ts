// test-legs: sqlite only — a provider's client and simulator: no database (docs/testing.md).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Stripe from 'stripe';
import { HttpReceiver } from '../../sinks/http-receiver';
import { StripeSimulator } from './stripe-simulator';

interface ErrorBody {
  error: { type: string; code?: string; param?: string; message: string; decline_code?: string };
}

const SESSION_FORM = [
  'mode=payment',
  'success_url=https%3A%2F%2Fshop.example%2Fok%3Fs%3D%7BCHECKOUT_SESSION_ID%7D',
  'cancel_url=https%3A%2F%2Fshop.example%2Fcancel',
  'client_reference_id=ref-1',
  'line_items[0][quantity]=1',
  'line_items[0][price_data][currency]=kwd',
  'line_items[0][price_data][unit_amount]=12340',
  'line_items[0][price_data][product_data][name]=Order%201',
];

/**
 * The Stripe simulator itself (contract §20, "Tested offline"): requests that do not fit Stripe's
 * OpenAPI document are refused the way Stripe refuses them, the hosted page pays, declines and
 * cancels, and the webhook controls hold, reorder, duplicate, replay, delay and forge events.
 */
describe('Stripe simulator', () => {
  let sim: StripeSimulator;
  let hooks: HttpReceiver;
  before(async () => {
    hooks = await HttpReceiver.start();
    sim = await StripeSimulator.start({ webhookUrl: hooks.url });
  });
  after(async () => {
    await sim.stop();
    await hooks.stop();
  });
  beforeEach(() => {
    hooks.received.length = 0;
  });

  const api = (
    method: 'GET' | 'POST',
    path: string,
    form: string[] = [],
    headers: Record<string, string> = {},
  ) =>
    fetch(`${sim.baseUrl}${path}${method === 'GET' && form.length ? `?${form.join('&')}` : ''}`, {
      method,
      headers: {
        Authorization: `Bearer ${sim.secretKey}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      body: method === 'POST' ? form.join('&') : undefined,
    });
  const newSession = async (extra: string[] = []) => {
    const response = await api('POST', '/v1/checkout/sessions', [...SESSION_FORM, ...extra]);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as { id: string; url: string; status: string };
  };
  const refusal = async (response: Response, status: number) => {
    assert.equal(response.status, status);
    return ((await response.json()) as ErrorBody).error;
  };

  describe('validation against the OpenAPI document', () => {
    it('names the spec version and commit it was taken from', () => {
      const source = JSON.stringify(sim.openapiSource);
      assert.match(source, /github\.com\/stripe\/openapi/);
      assert.match(source, /"commit":"[0-9a-f]{40}"/);
      assert.match(
        source,
        /"overlay_api_version":"2026-10-28\.endive"/,
        'and the SDK’s API version it is brought to',
      );
    });

    it('knows the parameters of the API version the SDK pins: allowed_payment_method_types, not payment_method_types', async () => {
      assert.equal((await newSession(['allowed_payment_method_types[0]=card'])).status, 'open');
      const removed = await refusal(
        await api('POST', '/v1/checkout/sessions', [...SESSION_FORM, 'payment_method_types[0]=card']),
        400,
      );
      assert.equal(removed.code, 'parameter_unknown');
    });

    it('accepts a request that fits', async () => {
      assert.equal((await newSession()).status, 'open');
    });

    it('refuses an unknown parameter, top-level or nested, with parameter_unknown', async () => {
      const top = await refusal(
        await api('POST', '/v1/checkout/sessions', [...SESSION_FORM, 'colour=red']),
        400,
      );
      assert.deepEqual(
        { type: top.type, code: top.code, param: top.param, message: top.message },
        {
          type: 'invalid_request_error',
          code: 'parameter_unknown',
          param: 'colour',
          message: 'Received unknown parameter: colour',
        },
      );
      const nested = await refusal(
        await api('POST', '/v1/checkout/sessions', [...SESSION_FORM, 'payment_intent_data[capture]=later']),
        400,
      );
      assert.equal(nested.code, 'parameter_unknown');
      assert.equal(nested.param, 'payment_intent_data[capture]');
      const query = await refusal(
        await api('GET', '/v1/payment_intents/pi_x', ['expand[0]=x', 'page=2']),
        400,
      );
      assert.equal(query.param, 'page');
    });

    it('refuses a missing required parameter with parameter_missing', async () => {
      const error = await refusal(
        await api(
          'POST',
          '/v1/checkout/sessions',
          SESSION_FORM.filter((p) => !p.startsWith('success_url')),
        ),
        400,
      );
      assert.equal(error.code, 'parameter_missing');
      assert.equal(error.param, 'success_url');
      const search = await refusal(await api('GET', '/v1/payment_intents/search', ['limit=3']), 400);
      assert.equal(search.param, 'query');
    });

    it('refuses a value of the wrong type or outside the enum', async () => {
      const integer = await refusal(
        await api('POST', '/v1/checkout/sessions', [
          ...SESSION_FORM.filter((p) => !p.includes('unit_amount')),
          'line_items[0][price_data][unit_amount]=12.34',
        ]),
        400,
      );
      assert.equal(integer.code, 'parameter_invalid_integer');
      assert.equal(integer.param, 'line_items[0][price_data][unit_amount]');
      const choice = await refusal(
        await api('POST', '/v1/checkout/sessions', [
          ...SESSION_FORM,
          'payment_intent_data[capture_method]=later',
        ]),
        400,
      );
      assert.equal(choice.param, 'payment_intent_data[capture_method]');
      assert.match(choice.message, /automatic, automatic_async, manual/);
    });

    it('answers 404 for a URL or method Stripe does not serve', async () => {
      const unknown = await refusal(await api('GET', '/v1/checkout/sessionz'), 404);
      assert.match(unknown.message, /Unrecognized request URL \(GET: \/v1\/checkout\/sessionz\)/);
      await refusal(await api('POST', '/v1/refunds/re_1/cancel'), 404);
    });

    it('refuses a three-decimal amount whose last digit is not 0', async () => {
      const error = await refusal(
        await api('POST', '/v1/checkout/sessions', [
          ...SESSION_FORM.filter((p) => !p.includes('unit_amount')),
          'line_items[0][price_data][unit_amount]=12345',
        ]),
        400,
      );
      assert.equal(error.param, 'line_items[0][price_data][unit_amount]');
      assert.match(error.message, /nearest ten/);
    });

    it('answers 401 in Stripe’s error shape without a key or with a wrong one', async () => {
      const none = await refusal(await fetch(`${sim.baseUrl}/v1/payment_intents/pi_1`), 401);
      assert.equal(none.type, 'invalid_request_error');
      assert.match(none.message, /You did not provide an API key/);
      const wrongKey = 'sk_test_0123456789abcdefWXYZ';
      const wrong = await refusal(
        await api('GET', '/v1/payment_intents/pi_1', [], { Authorization: `Bearer ${wrongKey}` }),
        401,
      );
      assert.match(wrong.message, /Invalid API Key provided: sk_test_\*+WXYZ/);
      assert.ok(!wrong.message.includes(wrongKey));
      const basic = await api('GET', '/v1/payment_intents/search', ["query=status:'succeeded'"], {
        Authorization: `Basic ${Buffer.from(`${sim.secretKey}:`).toString('base64')}`,
      });
      assert.equal(basic.status, 200, 'the key is also accepted as the Basic user name');
    });
  });

  describe('idempotency and test controls', () => {
    it('replays a stored answer, and refuses the key on another request', async () => {
      const key = { 'Idempotency-Key': `k-${Date.now()}` };
      const first = await api('POST', '/v1/customers', ['email=a%40example.com'], key);
      const again = await api('POST', '/v1/customers', ['email=a%40example.com'], key);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(await again.json(), await first.json());
      const other = await refusal(await api('POST', '/v1/customers', ['email=b%40example.com'], key), 400);
      assert.equal(other.type, 'idempotency_error');
      const elsewhere = await refusal(await api('POST', '/v1/checkout/sessions', SESSION_FORM, key), 400);
      assert.equal(elsewhere.type, 'idempotency_error');
    });

    it('fails the next calls with 500 (or another status), before doing anything', async () => {
      sim.failNext(2, 503);
      const customers = sim.apiRequests('PostCustomers').length;
      assert.equal((await refusal(await api('POST', '/v1/customers'), 503)).type, 'api_error');
      assert.equal((await api('POST', '/v1/customers')).status, 503);
      assert.equal((await api('POST', '/v1/customers')).status, 200);
      assert.equal(
        sim.apiRequests('PostCustomers').length - customers,
        1,
        'the failed calls reached no operation',
      );
    });

    it('delays an answer after carrying the request out', async () => {
      sim.delayAnswers(400);
      const started = Date.now();
      const response = await api('POST', '/v1/customers');
      assert.ok(Date.now() - started >= 400);
      assert.equal(response.status, 200);
    });

    it('records every request with its decoded params and answer', async () => {
      const session = await newSession(['metadata[order]=42']);
      const recorded = sim.apiRequests('PostCheckoutSessions').at(-1)!;
      assert.equal(recorded.status, 200);
      assert.deepEqual(recorded.params?.metadata, { order: '42' });
      assert.equal((recorded.response as { id: string }).id, session.id);
    });

    it('sets a PaymentIntent’s state', async () => {
      const session = await newSession(['payment_intent_data[capture_method]=manual']);
      sim.pay(session.id);
      const intentId = sim.session(session.id)!.payment_intent as string;
      sim.setPaymentIntentStatus(intentId, 'canceled');
      const intent = (await (
        await api('GET', `/v1/payment_intents/${intentId}`)
      ).json()) as Stripe.PaymentIntent;
      assert.equal(intent.status, 'canceled');
      assert.equal(intent.amount_capturable, 0);
    });
  });

  describe('hosted payment page', () => {
    const page = (path: string, form?: Record<string, string>) =>
      fetch(path, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
        body: form ? new URLSearchParams(form).toString() : undefined,
      });

    it('shows the amount, a card field, Pay and a link back to cancel_url', async () => {
      const session = await newSession();
      const html = await (await page(session.url)).text();
      assert.match(html, /12\.340 KWD/);
      assert.match(html, /id="cardNumber"/);
      assert.match(html, />Pay</);
      assert.match(html, /id="cancel" href="https:\/\/shop\.example\/cancel"/);
    });

    it('declines a declining test card and keeps the session open', async () => {
      const session = await newSession();
      const response = await page(session.url, { cardNumber: '4000 0000 0000 9995' });
      assert.equal(response.status, 402);
      assert.match(await response.text(), /Your card has insufficient funds\./);
      const stored = sim.session(session.id)!;
      assert.equal(stored.status, 'open');
      const intent = sim.paymentIntent(stored.payment_intent as string)!;
      assert.equal(intent.status, 'requires_payment_method');
      assert.equal(
        (intent.last_payment_error as { decline_code: string }).decline_code,
        'insufficient_funds',
      );
      await sim.settled();
      assert.ok(
        hooks.received.some((r) => (r.json as { type: string }).type === 'payment_intent.payment_failed'),
      );
    });

    it('pays with 4242…, completes the session and redirects (303) to success_url', async () => {
      const session = await newSession();
      const response = await page(session.url, { cardNumber: '4242424242424242' });
      assert.equal(response.status, 303);
      assert.equal(response.headers.get('location'), `https://shop.example/ok?s=${session.id}`);
      assert.equal(sim.session(session.id)!.status, 'complete');
      assert.equal(sim.session(session.id)!.payment_status, 'paid');
      assert.match(await (await page(session.url)).text(), /no longer available/);
    });

    it('asks for 3D Secure with 4000 0025 0000 3155, then pays once it is completed', async () => {
      const session = await newSession();
      const challenge = await page(session.url, { cardNumber: '4000002500003155' });
      assert.equal(challenge.status, 303);
      const location = challenge.headers.get('location')!;
      assert.match(location, /\/authenticate\?card=/);
      assert.match(await (await page(location)).text(), /Complete authentication/);
      const done = await page(location, { outcome: 'complete', card: '4000002500003155' });
      assert.equal(done.status, 303);
      assert.equal(sim.session(session.id)!.status, 'complete');
    });
  });

  describe('documented edges (contract §20.1)', () => {
    type Intent = {
      id: string;
      status: string;
      metadata: Record<string, string>;
      next_action: null | { type: string; redirect_to_url?: { url: string; return_url: string } };
      last_payment_error: null | { code: string };
    };
    const charge = async (extra: string[], key?: string) =>
      api(
        'POST',
        '/v1/payment_intents',
        ['amount=12340', 'currency=kwd', 'confirm=true', ...extra],
        key ? { 'Idempotency-Key': key } : {},
      );
    const search = async (reference: string) => {
      const response = await api('GET', '/v1/payment_intents/search', [
        `query=${encodeURIComponent(`metadata['reference_number']:'${reference}'`)}`,
      ]);
      assert.equal(response.status, 200);
      return ((await response.json()) as { data: Intent[] }).data;
    };
    const paidSession = async () => {
      const session = await newSession();
      sim.pay(session.id);
      return sim.session(session.id)!.payment_intent as string;
    };
    const typesSince = (count: number) =>
      hooks.received.slice(count).map((r) => (r.json as { type: string }).type);

    it('search lags: a PaymentIntent is not found at once, then found as it was, then as it is', async () => {
      sim.searchLagMs = 400;
      try {
        const ref = `lag-${Date.now()}`;
        const created = await charge([
          'payment_method=pm_card_visa',
          `metadata[reference_number]=${ref}`,
          'capture_method=manual',
        ]);
        const intent = (await created.json()) as Intent;
        assert.equal(intent.status, 'requires_capture');
        assert.deepEqual(await search(ref), [], 'not searchable right after the charge');
        await new Promise((resolve) => setTimeout(resolve, 450));
        sim.setPaymentIntentStatus(intent.id, 'canceled');
        const found = await search(ref);
        assert.deepEqual(
          found.map((i) => [i.id, i.status]),
          [[intent.id, 'requires_capture']],
          'the index still holds the state before the change',
        );
        await new Promise((resolve) => setTimeout(resolve, 450));
        assert.equal((await search(ref))[0].status, 'canceled');
      } finally {
        sim.searchLagMs = 0;
      }
    });

    it('an answer lost after the work was done: the same key replays the first answer, other params are refused', async () => {
      const key = `lost-${Date.now()}`;
      const ref = `lost-${Date.now()}`;
      const params = ['payment_method=pm_card_visa', `metadata[reference_number]=${ref}`];
      sim.dropAnswers(1);
      await assert.rejects(charge(params, key), 'the connection closes without an answer');
      const dropped = sim.apiRequests('PostPaymentIntents').at(-1)!;
      assert.equal(dropped.dropped, true);
      assert.equal(sim.intentsWithReference(ref).length, 1, 'the charge was made');
      const again = await charge(params, key);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      const replayed = (await again.json()) as Intent;
      assert.equal(replayed.id, sim.intentsWithReference(ref)[0].id);
      assert.equal(replayed.status, 'succeeded');
      assert.equal(sim.intentsWithReference(ref).length, 1, 'and only once');
      const other = await refusal(
        await charge(['payment_method=pm_card_mastercard', `metadata[reference_number]=${ref}`], key),
        400,
      );
      assert.equal(other.type, 'idempotency_error');
    });

    it('a Checkout Session stays open after a decline on its page, and can be expired', async () => {
      const session = await newSession();
      assert.ok(sim.pay(session.id, '4000000000000002').error);
      assert.equal(sim.session(session.id)!.status, 'open');
      assert.ok(sim.pay(session.id, '4000000000009995').error, 'the customer may try again');
      const expired = await api('POST', `/v1/checkout/sessions/${session.id}/expire`);
      assert.equal(expired.status, 200);
      assert.equal(((await expired.json()) as { status: string }).status, 'expired');
      const intent = sim.paymentIntent(sim.session(session.id)!.payment_intent as string)!;
      assert.equal(intent.status, 'canceled');
      assert.match(String(sim.pay(session.id).error), /expired/, 'no longer payable');
    });

    it('refunds may be pending, then succeed, fail or be canceled, with refund.updated; a list reads them back at once', async () => {
      const intentId = await paidSession();
      sim.refundsPending = true;
      try {
        const before = hooks.received.length;
        const created = await api(
          'POST',
          '/v1/refunds',
          [`payment_intent=${intentId}`, 'amount=2000', 'metadata[operation_key]=op-1'],
          { 'Idempotency-Key': `refund-${Date.now()}` },
        );
        const refund = (await created.json()) as { id: string; status: string };
        assert.equal(refund.status, 'pending');
        const second = (await (
          await api('POST', '/v1/refunds', [`payment_intent=${intentId}`, 'amount=1000'])
        ).json()) as { id: string };
        const listed = await api('GET', '/v1/refunds', [`payment_intent=${intentId}`, 'limit=1']);
        const list = (await listed.json()) as { data: { id: string }[]; has_more: boolean };
        assert.deepEqual(
          [list.data.map((r) => r.id), list.has_more],
          [[second.id], true],
          'newest first, paged',
        );
        const rest = (await (
          await api('GET', '/v1/refunds', [`payment_intent=${intentId}`, `starting_after=${second.id}`])
        ).json()) as { data: { id: string; metadata: Record<string, string> }[] };
        assert.deepEqual(
          rest.data.map((r) => [r.id, r.metadata.operation_key]),
          [[refund.id, 'op-1']],
        );

        sim.settleRefund(refund.id, 'failed');
        sim.settleRefund(second.id, 'succeeded');
        await sim.settled();
        const read = (await (await api('GET', `/v1/refunds/${refund.id}`)).json()) as {
          status: string;
          failure_reason: string;
        };
        assert.deepEqual([read.status, read.failure_reason], ['failed', 'expired_or_canceled_card']);
        assert.deepEqual(
          typesSince(before).filter((t) => t.startsWith('refund.')),
          ['refund.created', 'refund.created', 'refund.updated', 'refund.failed', 'refund.updated'],
        );
        const chargeId = sim.paymentIntent(intentId)!.latest_charge as string;
        assert.equal(
          sim.ledger().find((c) => c.charge === chargeId)!.amountRefunded,
          1000,
          'a failed refund gives the amount back to the charge',
        );
      } finally {
        sim.refundsPending = false;
      }
    });

    it('a customer-present PaymentIntent of a card that asks for 3D Secure goes requires_action; off-session it is declined', async () => {
      const declined = await refusal(
        await charge(['payment_method=pm_card_authenticationRequired', 'off_session=true']),
        402,
      );
      assert.equal(declined.code, 'authentication_required');

      const present = await charge([
        'payment_method=pm_card_authenticationRequired',
        'off_session=false',
        'return_url=https%3A%2F%2Fshop.example%2Fback%3Fref%3D7',
      ]);
      const intent = (await present.json()) as Intent;
      assert.equal(intent.status, 'requires_action');
      assert.equal(intent.next_action?.type, 'redirect_to_url');
      const url = intent.next_action.redirect_to_url!.url;
      const challenge = await fetch(url);
      assert.match(await challenge.text(), /Complete authentication/);
      const done = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'outcome=complete',
      });
      assert.equal(done.status, 303);
      const back = new URL(done.headers.get('location')!);
      assert.equal(`${back.origin}${back.pathname}`, 'https://shop.example/back');
      assert.equal(back.searchParams.get('ref'), '7');
      assert.equal(back.searchParams.get('payment_intent'), intent.id);
      assert.equal(back.searchParams.get('redirect_status'), 'succeeded');
      assert.equal(sim.paymentIntent(intent.id)!.status, 'succeeded');
      assert.equal((await fetch(url)).status, 404, 'the page is used once');

      const failing = (await (
        await charge([
          'payment_method=pm_card_authenticationRequired',
          'return_url=https%3A%2F%2Fshop.example%2Fback',
        ])
      ).json()) as Intent;
      const failedBack = new URL(sim.authenticate(failing.id, 'fail'));
      assert.equal(failedBack.searchParams.get('redirect_status'), 'failed');
      const failed = sim.paymentIntent(failing.id)!;
      assert.equal(failed.status, 'requires_payment_method');
      assert.equal(
        (failed.last_payment_error as { code: string }).code,
        'payment_intent_authentication_failure',
      );

      const inPage = (await (
        await charge(['payment_method=pm_card_authenticationRequired'])
      ).json()) as Intent;
      assert.equal(inPage.next_action?.type, 'use_stripe_sdk', 'without return_url, for Stripe.js');
      assert.equal(
        (
          await refusal(
            await api('POST', '/v1/payment_intents', [
              'amount=1000',
              'currency=usd',
              'return_url=https%3A%2F%2Fx.example',
            ]),
            400,
          )
        ).param,
        'return_url',
      );
    });

    it('allowed_payment_method_types is honoured: a session left to dynamic methods takes a bank debit that processes for days', async () => {
      const form = SESSION_FORM.map((f) =>
        f.startsWith('line_items[0][price_data][currency]') ? 'line_items[0][price_data][currency]=usd' : f,
      ).map((f) =>
        f.startsWith('line_items[0][price_data][unit_amount]')
          ? 'line_items[0][price_data][unit_amount]=1000'
          : f,
      );
      const open = (await (await api('POST', '/v1/checkout/sessions', form)).json()) as {
        id: string;
        url: string;
      };
      assert.deepEqual(sim.session(open.id)!.payment_method_types, ['card', 'us_bank_account']);
      assert.match(await (await fetch(open.url)).text(), /id="bank"/);
      assert.ok(sim.payWithBankAccount(open.id).redirect);
      assert.deepEqual(
        [sim.session(open.id)!.status, sim.session(open.id)!.payment_status],
        ['complete', 'unpaid'],
      );
      const intentId = sim.session(open.id)!.payment_intent as string;
      assert.equal(sim.paymentIntent(intentId)!.status, 'processing');
      sim.settleDelayedPayment(open.id, 'succeeded');
      assert.equal(sim.paymentIntent(intentId)!.status, 'succeeded');
      assert.ok(sim.events.some((e) => e.type === 'checkout.session.async_payment_succeeded'));

      const cards = (await (
        await api('POST', '/v1/checkout/sessions', [...form, 'allowed_payment_method_types[0]=card'])
      ).json()) as { id: string; url: string };
      assert.deepEqual(sim.session(cards.id)!.payment_method_types, ['card']);
      assert.doesNotMatch(await (await fetch(cards.url)).text(), /id="bank"/);
      assert.match(String(sim.payWithBankAccount(cards.id).error), /not available/);
      assert.equal(sim.session(cards.id)!.status, 'open');
    });

    it('keeps a ledger of the charges that went through, with their reference', async () => {
      const ref = `ledger-${Date.now()}`;
      await charge(['payment_method=pm_card_visa', `metadata[reference_number]=${ref}`]);
      await charge(['payment_method=pm_card_chargeDeclined', `metadata[reference_number]=${ref}-d`]);
      const mine = sim.ledger().filter((c) => c.reference?.startsWith(ref));
      assert.deepEqual(
        mine.map((c) => [c.reference, c.amount, c.currency, c.captured]),
        [[ref, 12340, 'kwd', true]],
      );
    });
  });

  describe('webhooks', () => {
    const types = () => hooks.received.map((r) => (r.json as { type: string }).type);
    const verify = (index: number) =>
      Stripe.webhooks.constructEvent(
        hooks.received[index].body,
        hooks.received[index].headers['stripe-signature'] as string,
        sim.webhookSecret,
      );

    it('signs each event as Stripe does', async () => {
      const session = await newSession();
      sim.pay(session.id);
      await sim.settled();
      assert.ok(types().includes('checkout.session.completed'), types().join());
      hooks.received.forEach((_, i) =>
        assert.equal(verify(i).id, (hooks.received[i].json as { id: string }).id),
      );
      assert.match(String(hooks.received[0].headers['stripe-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    });

    it('holds events, then sends them reversed and duplicated', async () => {
      sim.holdWebhooks();
      const session = await newSession();
      sim.pay(session.id);
      await sim.settled();
      assert.equal(hooks.received.length, 0);
      const sent = await sim.releaseWebhooks({ reverse: true, duplicate: true });
      const eventTypes = sent.filter((_, i) => i % 2 === 0).map((d) => d.type);
      assert.equal(eventTypes[0], 'checkout.session.completed');
      assert.equal(eventTypes.at(-1), 'payment_intent.created');
      assert.equal(sent[0].eventId, sent[1].eventId, 'each event is sent twice');
      assert.equal(hooks.received.length, sent.length);
    });

    it('replays an event with the same id, newly signed', async () => {
      const event = sim.events.at(-1)!;
      const delivery = await sim.replayEvent(event.id);
      assert.equal(delivery.status, 200);
      assert.equal((hooks.received.at(-1)!.json as { id: string }).id, event.id);
      assert.equal(verify(hooks.received.length - 1).id, event.id);
    });

    it('sends forged events that do not verify', async () => {
      await sim.sendForgedEvent({
        type: 'payment_intent.succeeded',
        object: { id: 'pi_forged', object: 'payment_intent' },
      });
      assert.throws(() => verify(hooks.received.length - 1), Stripe.errors.StripeSignatureVerificationError);
      await sim.replayEvent(sim.events.at(-1)!.id, { timestamp: Math.floor(Date.now() / 1000) - 600 });
      assert.throws(() => verify(hooks.received.length - 1), /Timestamp outside the tolerance zone/);
    });

    it('delays events', async () => {
      sim.webhookDelayMs = 300;
      try {
        const session = await newSession();
        sim.pay(session.id);
        assert.equal(hooks.received.length, 0);
        await sim.settled();
        assert.ok(hooks.received.length > 0);
      } finally {
        sim.webhookDelayMs = 0;
      }
    });
  });
});
